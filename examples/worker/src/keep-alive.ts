const COMMENT = new TextEncoder().encode(": keep-alive\n\n");

/**
 * `response` with an SSE comment written every `everyMs` while its event stream is open. workerd cancels a request
 * whose code waits on nothing it can see (a listen stream between notifications looks hung: its events come from
 * other requests), and Cloudflare's edge may close a response that says nothing for 100 s; a timer in the request's
 * own context, and the bytes it writes, keep both away. Clients skip comments. Other responses pass as they are.
 */
export function keptAlive(response: Response, everyMs = 20_000): Response {
  const body = response.body;
  if (body === null || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const reader = body.getReader();
  let timer: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      // Between events, never inside one: the transport enqueues each event whole.
      timer = setInterval(() => controller.enqueue(COMMENT), everyMs);
    },
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        // The stream failed (its client read too slowly): this one fails with it, and writes nothing more.
        clearInterval(timer);
        throw error;
      }
      if (!next.done) return controller.enqueue(next.value);
      clearInterval(timer);
      controller.close();
    },
    cancel(reason) {
      clearInterval(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
