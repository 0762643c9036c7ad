/**
 * Runs `load` with console.info and console.warn silenced: oidc-provider prints its development notices (an
 * unsupported Node release, the development interactions, an experimental feature) through them while it loads and
 * while a provider is built, and nothing may reach a test's console. Each notice is about this fixture's chosen
 * set-up, so none is lost.
 */
export async function quietly<T>(load: () => Promise<T> | T): Promise<T> {
  const { info, warn } = console;
  console.info = () => {};
  console.warn = () => {};
  try {
    return await load();
  } finally {
    console.info = info;
    console.warn = warn;
  }
}
