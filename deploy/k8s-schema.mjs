// Validates Kubernetes objects against the API's OpenAPI schemas, as the `kubernetes-models` package
// ships them (ES modules only, so deploy.spec.ts runs this file in a Node process of its own).
// stdin: a JSON array of objects. stdout: a JSON array, one entry per object, in order:
//   { "schema": false }                      no schema for this apiVersion and kind (a CRD's object)
//   { "schema": true, "problems": [...] }     "<path> <message>" per problem; [] when valid
// Unknown fields are not problems here (the schemas allow them, as kubeconform does without -strict).

const input = JSON.parse(
  await new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  }),
);

const modelOf = async (apiVersion, kind) => {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    return undefined;
  }
  try {
    return (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
  } catch (error) {
    if (error.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' || error.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
};

const results = [];
for (const object of input) {
  const Model = await modelOf(String(object.apiVersion), String(object.kind));
  if (!Model) {
    results.push({ schema: false });
    continue;
  }
  // The API server decodes a Secret's base64 ignoring line breaks, which kustomize puts in long values.
  const data =
    object.kind === 'Secret' && object.data
      ? Object.fromEntries(Object.entries(object.data).map(([key, value]) => [key, String(value).replace(/\s+/g, '')]))
      : undefined;
  try {
    new Model(data ? { ...object, data } : object).validate();
    results.push({ schema: true, problems: [] });
  } catch (error) {
    const details = Array.isArray(error.errors) ? error.errors : [{ instancePath: '', message: error.message }];
    results.push({
      schema: true,
      problems: details.map(
        (d) => `${d.instancePath || '/'} ${d.message}${d.params ? ` ${JSON.stringify(d.params)}` : ''}`,
      ),
    });
  }
}
process.stdout.write(JSON.stringify(results));
