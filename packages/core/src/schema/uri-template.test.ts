import { describe, expect, it } from "vitest";
import { DefinitionError } from "../index.js";
import { isUriTemplate, MAX_URI_LENGTH, parseUriTemplate } from "./uri-template.js";

function parseError(template: string): DefinitionError {
  try {
    parseUriTemplate(template);
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return error as DefinitionError;
  }
  throw new Error(`expected ${template} to be rejected`);
}

function match(template: string, uri: string) {
  return parseUriTemplate(template).match(uri);
}

describe("parseUriTemplate: malformed templates", () => {
  it("rejects an unclosed brace", () => {
    expect(parseError("notes://{id").message).toMatch(/never closed/);
  });

  it("rejects a closing brace with no opening one", () => {
    expect(parseError("notes://id}").message).toMatch(/"}" with no "{"/);
  });

  it("rejects an empty expression", () => {
    expect(parseError("notes://{}").message).toMatch(/empty/);
  });

  it("rejects a nested expression", () => {
    expect(parseError("notes://{a{b}}").message).toBe(
      'URI template "notes://{a{b}}" has an empty or nested expression',
    );
  });

  for (const operator of ["=", ",", "!", "@", "|"]) {
    it(`rejects the reserved operator "${operator}" and names the allowed ones`, () => {
      const message = parseError(`notes://{${operator}id}`).message;
      expect(message).toContain(`reserved operator "${operator}"`);
      expect(message).toContain("+ # . / ; ? &");
    });
  }

  it("rejects a variable named twice, in one expression or across expressions", () => {
    expect(parseError("notes://{id}/{id}").message).toContain('"id" twice');
    expect(parseError("search://{?q,q}").message).toContain('"q" twice');
    expect(parseError("files://{+path}{?path}").message).toContain('"path" twice');
  });

  for (const bad of ["a-b", "a b", " id", "id.", ".", "a..b", "%zz", "é", "x*:3"]) {
    it(`rejects the variable name ${JSON.stringify(bad)}`, () => {
      expect(parseError(`notes://{${bad}}`).message).toContain("invalid variable name");
    });
  }

  it("rejects an empty variable in a list", () => {
    expect(parseError("notes://{a,}").message).toContain("invalid variable name");
  });

  for (const prefix of ["0", "-1", "abc", "10000", "1.5"]) {
    it(`rejects the prefix :${prefix}`, () => {
      expect(parseError(`notes://{id:${prefix}}`).message).toContain("invalid prefix");
    });
  }

  it("rejects a prefix combined with explode (RFC 6570: one modifier per variable)", () => {
    expect(parseError("notes://{id:3*}").message).toBe(
      'URI template "notes://{id:3*}" gives "id" both a prefix and "*"; a variable takes one modifier or none',
    );
  });

  it("accepts legal names: letters, digits, underscore, dots inside, pct-encoded", () => {
    expect(parseUriTemplate("x://{a_1}{.b.c}{/%41x}").variables).toEqual(["a_1", "b.c", "%41x"]);
  });

  it("lists the variables in template order", () => {
    expect(parseUriTemplate("files://{+root}/{name}{.ext}{?rev,mode}").variables).toEqual([
      "root",
      "name",
      "ext",
      "rev",
      "mode",
    ]);
    expect(parseUriTemplate("notes://all").variables).toEqual([]);
  });
});

describe("isUriTemplate", () => {
  it("is true only for text with an {expression}", () => {
    expect(isUriTemplate("notes://{id}")).toBe(true);
    expect(isUriTemplate("notes://all")).toBe(false);
    expect(isUriTemplate("notes://{")).toBe(false);
  });
});

describe("UriTemplate.match: operators", () => {
  it("{x}: simple string expansion", () => {
    expect(match("notes://{id}", "notes://42")).toEqual({ id: "42" });
    expect(match("users://{user}/notes/{note}", "users://ann/notes/7")).toEqual({ user: "ann", note: "7" });
  });

  it("{x,y}: several simple variables separated by commas", () => {
    expect(match("point://{x,y}", "point://3,4")).toEqual({ x: "3", y: "4" });
  });

  it("{+x}: reserved expansion keeps slashes", () => {
    expect(match("files://{+path}", "files://a/b/c.txt")).toEqual({ path: "a/b/c.txt" });
  });

  it("{+x}{?y}: a reserved path followed by a query", () => {
    expect(match("files://{+path}{?rev}", "files://a/b.txt?rev=3")).toEqual({ path: "a/b.txt", rev: "3" });
  });

  it("{#x}: fragment expansion", () => {
    expect(match("doc://page{#section}", "doc://page#intro")).toEqual({ section: "intro" });
    expect(match("doc://page{#section}", "doc://page#a/b")).toEqual({ section: "a/b" });
    expect(match("doc://page{#a,b}", "doc://page#1,2")).toEqual({ a: "1", b: "2" });
  });

  it("{.x}: label expansion", () => {
    expect(match("file://name{.ext}", "file://name.txt")).toEqual({ ext: "txt" });
    expect(match("host://www{.a,b}", "host://www.example.com")).toEqual({ a: "example", b: "com" });
    expect(match("file://name{.ext}", "file://name.tar.gz")).toBeUndefined();
  });

  it("{.x*}: exploded labels give an array", () => {
    expect(match("file://name{.ext*}", "file://name.tar.gz")).toEqual({ ext: ["tar", "gz"] });
  });

  it("{/x}: path segment expansion", () => {
    expect(match("api://root{/seg}", "api://root/users")).toEqual({ seg: "users" });
    expect(match("api://root{/a,b}", "api://root/users/7")).toEqual({ a: "users", b: "7" });
    expect(match("api://root{/seg}", "api://root/users/7")).toBeUndefined();
  });

  it("{/x*}: exploded path segments give an array", () => {
    expect(match("api://root{/path*}", "api://root/a/b/c")).toEqual({ path: ["a", "b", "c"] });
    expect(match("api://root{/path*}{?q}", "api://root/a/b?q=1")).toEqual({ path: ["a", "b"], q: "1" });
  });

  it("{;x}: path-style parameters, in any order, empty value without '='", () => {
    expect(match("map://m{;x,y}", "map://m;x=1;y=2")).toEqual({ x: "1", y: "2" });
    expect(match("map://m{;x,y}", "map://m;y=2;x=1")).toEqual({ x: "1", y: "2" });
    expect(match("map://m{;x}", "map://m;x")).toEqual({ x: "" });
  });

  it("{?x,y}: query parameters in any order, each optional", () => {
    expect(match("search://q{?x,y}", "search://q?x=1&y=2")).toEqual({ x: "1", y: "2" });
    expect(match("search://q{?x,y}", "search://q?y=2&x=1")).toEqual({ x: "1", y: "2" });
    expect(match("search://q{?x,y}", "search://q?y=2")).toEqual({ y: "2" });
    expect(match("search://q{?x,y}", "search://q")).toEqual({});
  });

  it("{?x}: a parameter without '=' has the empty value", () => {
    expect(match("search://q{?x}", "search://q?x")).toEqual({ x: "" });
  });

  it("{&x}: query continuation after a literal query", () => {
    expect(match("search://q?fixed=1{&x}", "search://q?fixed=1&x=5")).toEqual({ x: "5" });
    expect(match("search://q?fixed=1{&x,y}", "search://q?fixed=1&y=6&x=5")).toEqual({ x: "5", y: "6" });
  });

  it("{?x}{&y}: query continuation after a query expression", () => {
    expect(match("search://q{?x}{&y}", "search://q?x=1&y=2")).toEqual({ x: "1", y: "2" });
  });

  it("{x:3}: a prefix bounds the value's length", () => {
    expect(match("code://{x:3}", "code://abc")).toEqual({ x: "abc" });
    expect(match("code://{x:3}", "code://ab")).toEqual({ x: "ab" });
    expect(match("code://{x:3}", "code://abcd")).toBeUndefined();
    expect(match("code://{x:3}/{y}", "code://abc/rest")).toEqual({ x: "abc", y: "rest" });
  });

  it("{x*}: an exploded simple list gives an array", () => {
    expect(match("list://{items*}", "list://a,b,c")).toEqual({ items: ["a", "b", "c"] });
  });

  it("{?x*}: an exploded query list gives every value", () => {
    expect(match("q://s{?tag*}", "q://s?tag=a&tag=b")).toEqual({ tag: ["a", "b"] });
  });
});

describe("UriTemplate.match: percent-decoding", () => {
  it("decodes simple values, including an encoded slash", () => {
    expect(match("notes://{id}", "notes://a%20b")).toEqual({ id: "a b" });
    expect(match("notes://{id}", "notes://%E2%82%AC")).toEqual({ id: "€" });
    expect(match("notes://{id}", "notes://a%2Fb")).toEqual({ id: "a/b" });
  });

  it("decodes reserved, fragment, label, segment and query values", () => {
    expect(match("files://{+path}", "files://a%20b/c")).toEqual({ path: "a b/c" });
    expect(match("doc://p{#s}", "doc://p#a%20b")).toEqual({ s: "a b" });
    expect(match("file://n{.ext}", "file://n.t%20x")).toEqual({ ext: "t x" });
    expect(match("api://r{/path*}", "api://r/a/b%20c")).toEqual({ path: ["a", "b c"] });
    expect(match("search://q{?text}", "search://q?text=hello%20world%26more")).toEqual({ text: "hello world&more" });
    expect(match("map://m{;x}", "map://m;x=%C3%A9")).toEqual({ x: "é" });
  });
});

describe("UriTemplate.match: non-matches", () => {
  it("a different scheme or literal does not match", () => {
    expect(match("notes://{id}", "other://42")).toBeUndefined();
    expect(match("notes://item/{id}", "notes://thing/42")).toBeUndefined();
    expect(match("NOTES://{id}", "notes://42")).toBeUndefined();
  });

  it("extra path segments do not match", () => {
    expect(match("notes://{id}", "notes://42/extra")).toBeUndefined();
    expect(match("notes://{id}/data", "notes://42/data/more")).toBeUndefined();
  });

  it("an empty value does not match a simple variable", () => {
    expect(match("notes://{id}", "notes://")).toBeUndefined();
  });

  it("malformed %-escapes do not match", () => {
    expect(match("notes://{id}", "notes://a%ZZ")).toBeUndefined();
    expect(match("notes://{id}", "notes://%E2%82")).toBeUndefined();
    expect(match("notes://{id}", "notes://%")).toBeUndefined();
    expect(match("files://{+path}", "files://a/%G0")).toBeUndefined();
    expect(match("search://q{?x}", "search://q?x=%ZZ")).toBeUndefined();
    expect(match("api://r{/path*}", "api://r/a/%zz")).toBeUndefined();
  });

  it("a simple {id} never matches across '/'", () => {
    expect(match("users://{id}", "users://a/b")).toBeUndefined();
    expect(match("users://{id}/profile", "users://a/b/profile")).toBeUndefined();
    expect(match("users://{a}/{b}", "users://x/y/z")).toBeUndefined();
  });

  it("a simple {id} does not swallow a query or fragment", () => {
    expect(match("notes://{id}", "notes://42?x=1")).toBeUndefined();
    expect(match("notes://{id}", "notes://42#top")).toBeUndefined();
  });

  it("regex metacharacters in the literal part are literal", () => {
    expect(match("a+b://x.y/{id}", "a+b://x.y/1")).toEqual({ id: "1" });
    expect(match("a+b://x.y/{id}", "aab://xzy/1")).toBeUndefined();
  });
});

describe("reading values back stays unambiguous and linear", () => {
  it("a value ends at the first character that follows it in the template", () => {
    expect(parseUriTemplate("files://{name}.{ext}").match("files://archive.tar.gz")).toEqual({
      name: "archive",
      ext: "tar.gz",
    });
    expect(parseUriTemplate("users://{id}-profile").match("users://42-profile")).toEqual({ id: "42" });
    expect(parseUriTemplate("repo://{owner}/{+path}").match("repo://me/a/b.txt")).toEqual({
      owner: "me",
      path: "a/b.txt",
    });
  });

  it("refuses templates whose values could not be told apart", () => {
    expect(() => parseUriTemplate("x://{+a}/{+b}")).toThrow(/more than one, so keep one/);
    expect(() => parseUriTemplate("x://{a}{b}")).toThrow(/put a literal/);
    expect(() => parseUriTemplate("x://{a}{+b}")).toThrow(/put a literal/);
    expect(parseUriTemplate("x://{a}{.b}{/c}").match("x://one.two/three")).toEqual({ a: "one", b: "two", c: "three" });
  });

  it("{;x}{;y} reads as {;x,y}: both parameters by name, in any order", () => {
    const template = parseUriTemplate("map://m{;x}{;y}");
    expect(template.match("map://m;x=1;y=2")).toEqual({ x: "1", y: "2" });
    expect(template.match("map://m;y=2;x=1")).toEqual({ x: "1", y: "2" });
    expect(parseUriTemplate("map://{place}{;lat}{;lng}").match("map://home;lng=2;lat=1")).toEqual({
      place: "home",
      lat: "1",
      lng: "2",
    });
  });

  it("refuses three expressions in a row that may each hold what opens the next (cubic matching)", () => {
    for (const [template, named] of [
      ["x://{/a*}{/b*}{/c*}", "{/c*} right after {/b*}, itself right after {/a*}"],
      ["x://{.a*}{.b*}{.c*}", "{.c*} right after {.b*}, itself right after {.a*}"],
      ["x://{+a}{/b*}{/c*}", "{/c*} right after {/b*}, itself right after {+a}"],
      ["x://{+a}{;b}{.c}", "{.c} right after {;b}, itself right after {+a}"],
    ] as const) {
      expect(() => parseUriTemplate(template), template).toThrow(`URI template "${template}" puts ${named}`);
    }
    // One such split, or a query continued by {&y}, is read in time linear or quadratic in the URI.
    expect(parseUriTemplate("files://{+root}{/path*}{?rev,limit}").variables).toEqual(["root", "path", "rev", "limit"]);
    expect(parseUriTemplate("x://{a}{?b}{&c}{;d}").match("x://a?b=1&c=2")).toEqual({ a: "a", b: "1", c: "2" });
  });

  it("a long URI that does not fit a template of parameters is refused at once (it took a minute)", () => {
    const uri = `map://m${";x=".repeat(2700)}/`;
    expect(parseUriTemplate("map://m{;x}{;y}{;z}").match(uri)).toBeUndefined();
    expect(parseUriTemplate("map://{+path}{;y}{;z}").match(`map://${";y=".repeat(2700)}#`)).toBeUndefined();
  });

  it("URIs that do not fit are refused, however long; past MAX_URI_LENGTH nothing matches", () => {
    expect(parseUriTemplate("x://{a}.{b}.{c}").match(`x://${".".repeat(4000)}/`)).toBeUndefined();
    expect(parseUriTemplate("x://{+a}/{b}").match(`x://${"/".repeat(8000)}?`)).toBeUndefined();
    const long = `x://${"a".repeat(MAX_URI_LENGTH)}`;
    expect(parseUriTemplate("x://{a}").match(long)).toBeUndefined();
    expect(parseUriTemplate("x://{a}").match(long.slice(0, MAX_URI_LENGTH))).toEqual({
      a: "a".repeat(MAX_URI_LENGTH - 4),
    });
  });
});
