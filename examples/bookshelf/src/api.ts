import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";

// The bookshelf: a small HTTP API of its own, not an MCP server. Fastify's swagger plugin writes its OpenAPI document
// from the routes' schemas, served at /openapi.json; adding or removing a book takes the API key (X-Api-Key).

const BOOK = {
  type: "object",
  properties: {
    id: { type: "integer" },
    title: { type: "string" },
    author: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id", "title", "author", "tags"],
};
const MESSAGE = { type: "object", properties: { message: { type: "string" } }, required: ["message"] };

interface Book {
  id: number;
  title: string;
  author: string;
  tags: string[];
}

/** The bookshelf API, ready to listen; `apiKey` is the key its writes take. */
export async function bookshelfApi(apiKey: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "bookshelf", version: "1.0.0", description: "Books on a shelf" },
      // Relative: read against the URL the document is served from.
      servers: [{ url: "/" }],
      components: { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" } } },
    },
  });
  const books = new Map<number, Book>([
    [1, { id: 1, title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", tags: ["fiction", "classic"] }],
    [2, { id: 2, title: "Gödel, Escher, Bach", author: "Douglas Hofstadter", tags: ["non-fiction"] }],
  ]);
  let next = 3;
  const secured = [{ apiKey: [] }];
  const keyed = (key: unknown) => key === apiKey;

  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get(
    "/books",
    {
      schema: {
        operationId: "listBooks",
        summary: "List the books, by author or tag",
        querystring: {
          type: "object",
          properties: {
            author: { type: "string", description: "Part of the author's name" },
            tag: { type: "array", items: { type: "string" }, description: "Books with every one of these tags" },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
          },
        },
        response: { 200: { type: "array", items: BOOK } },
      },
    },
    async (request) => {
      const { author, tag = [], limit } = request.query as { author?: string; tag?: string[]; limit: number };
      return [...books.values()]
        .filter((book) => author === undefined || book.author.toLowerCase().includes(author.toLowerCase()))
        .filter((book) => tag.every((each) => book.tags.includes(each)))
        .slice(0, limit);
    },
  );
  app.get(
    "/books/:id",
    {
      schema: {
        operationId: "getBook",
        summary: "One book by id",
        params: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        response: { 200: BOOK, 404: MESSAGE },
      },
    },
    async (request, reply) => {
      const book = books.get((request.params as { id: number }).id);
      return book ?? reply.code(404).send({ message: "no such book" });
    },
  );
  app.post(
    "/books",
    {
      schema: {
        operationId: "addBook",
        summary: "Put a book on the shelf",
        security: secured,
        body: {
          type: "object",
          properties: {
            title: { type: "string", minLength: 1, maxLength: 200 },
            author: { type: "string", minLength: 1, maxLength: 200 },
            tags: { type: "array", items: { type: "string", maxLength: 40 }, maxItems: 10 },
          },
          required: ["title", "author"],
        },
        response: { 201: BOOK, 401: MESSAGE },
      },
    },
    async (request, reply) => {
      if (!keyed(request.headers["x-api-key"])) return reply.code(401).send({ message: "an API key is needed" });
      const { title, author, tags = [] } = request.body as Omit<Book, "id" | "tags"> & { tags?: string[] };
      const book = { id: next++, title, author, tags };
      books.set(book.id, book);
      return reply.code(201).send(book);
    },
  );
  app.delete(
    "/books/:id",
    {
      schema: {
        operationId: "removeBook",
        summary: "Take a book off the shelf",
        security: secured,
        params: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        response: { 204: { type: "null" }, 401: MESSAGE, 404: MESSAGE },
      },
    },
    async (request, reply) => {
      if (!keyed(request.headers["x-api-key"])) return reply.code(401).send({ message: "an API key is needed" });
      const id = (request.params as { id: number }).id;
      if (!books.delete(id)) return reply.code(404).send({ message: "no such book" });
      return reply.code(204).send();
    },
  );
  await app.ready();
  return app;
}
