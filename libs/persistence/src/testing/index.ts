export async function prepareTestTemplate(): Promise<void> {}
