// The one module with side effects: what both decorator dialects need before any class is defined.
// reflect-metadata: legacy decorators store registrations with it, and TypeScript's design:paramtypes needs it.
import "reflect-metadata";

// TC39 decorators get `context.metadata` only when Symbol.metadata exists; neither TypeScript nor Node 20 defines it.
if (typeof (Symbol as { metadata?: symbol }).metadata !== "symbol") {
  Object.defineProperty(Symbol, "metadata", { value: Symbol.for("Symbol.metadata"), configurable: true });
}
