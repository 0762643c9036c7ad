/** A document that cannot be read, or whose tools would clash or cannot be called: said at start. */
export class OpenApiError extends Error {
  override name = "OpenApiError";
}
