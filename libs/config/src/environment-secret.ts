/**
 * A variable named in a file that is not itself secret (`apiKeyEnv: OPENAI_API_KEY` in the routing file).
 * Read when the file is loaded, so a rotated key applies at the next reload.
 */
export function environmentSecret(
  name: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (!/^[A-Z_][A-Z0-9_]{0,127}$/.test(name)) throw new Error(`"${name}" is not an environment variable name`);
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}
