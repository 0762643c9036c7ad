// The variables of an RFC 6570 template, read from its literal type: "notes://{id}{?rev}" → { id: string; rev?: string }.

type Operator = "+" | "#" | "." | "/" | ";" | "?" | "&";

type Expressions<T extends string> = T extends `${string}{${infer Expression}}${infer Rest}`
  ? Expression | Expressions<Rest>
  : never;

type Specs<List extends string> = List extends `${infer Head},${infer Tail}` ? Head | Specs<Tail> : List;

type Body<E extends string> = E extends `${Operator}${infer Rest}` ? Rest : E;

type NameOf<Spec extends string> = Spec extends `${infer Name}*`
  ? Name
  : Spec extends `${infer Name}:${string}`
    ? Name
    : Spec;

type Exploded<E extends string> =
  Specs<Body<E>> extends infer Spec ? (Spec extends `${infer Name}*` ? Name : never) : never;

// Query-style expressions may be absent from a URI that still matches.
type Optional<E extends string> = E extends `${"?" | "&" | "#" | ";"}${string}` ? NameOf<Specs<Body<E>>> : never;

type AllNames<T extends string> = NameOf<Specs<Body<Expressions<T>>>>;
type ExplodedNames<T extends string> = Exploded<Expressions<T>>;
type OptionalNames<T extends string> = Optional<Expressions<T>>;

type ValueOf<T extends string, K extends string> = K extends ExplodedNames<T> ? string[] : string;

/** The variables a template's handler receives, typed from the template string. */
export type TemplateVariables<T extends string> = string extends T
  ? Record<string, string | string[]>
  : { [K in Exclude<AllNames<T>, OptionalNames<T>>]: ValueOf<T, K> } & {
      [K in OptionalNames<T>]?: ValueOf<T, K>;
    };

/** True (the type) when T holds a {variable}. */
export type IsTemplate<T extends string> = T extends `${string}{${string}}${string}` ? true : false;
