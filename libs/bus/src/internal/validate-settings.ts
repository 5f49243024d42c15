export function positiveSeconds(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a number of seconds > 0`);
  return value;
}

export function nonNegativeMs(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of milliseconds >= 0`);
  return value;
}
