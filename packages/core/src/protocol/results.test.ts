import { describe, expect, it } from "vitest";
import { audio, embeddedResource, image, resourceLink, text } from "./results.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("content helpers", () => {
  it("make the blocks the spec defines, bytes as base64", () => {
    expect(text("hi", { annotations: { audience: ["user"] } })).toEqual({
      type: "text",
      text: "hi",
      annotations: { audience: ["user"] },
    });
    expect(image(PNG, "image/png")).toEqual({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
    expect(image("iVBORw0KGgo=", "image/png").data).toBe("iVBORw0KGgo=");
    expect(audio(new Uint8Array([1, 2, 3]), "audio/wav")).toEqual({
      type: "audio",
      data: "AQID",
      mimeType: "audio/wav",
    });
    expect(resourceLink({ uri: "notes://1", name: "note 1", mimeType: "text/plain" })).toEqual({
      type: "resource_link",
      uri: "notes://1",
      name: "note 1",
      mimeType: "text/plain",
    });
    expect(embeddedResource("notes://1", "body", { mimeType: "text/plain" })).toEqual({
      type: "resource",
      resource: { uri: "notes://1", mimeType: "text/plain", text: "body" },
    });
    expect(embeddedResource("bin://x", new Uint8Array([255]))).toEqual({
      type: "resource",
      resource: { uri: "bin://x", blob: "/w==" },
    });
  });
});
