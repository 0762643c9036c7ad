import { describe, expect, it } from "vitest";
import { openerFor } from "./browser.js";

const URL = "https://idp.example.com/authorize?client_id=a&state=b";

describe("choosing how to open the sign-in URL", () => {
  it("uses xdg-open on Linux only with a display (X11 or Wayland)", () => {
    expect(openerFor(URL, { platform: "linux", env: { DISPLAY: ":0" } })).toEqual({
      command: "xdg-open",
      args: [URL],
    });
    expect(openerFor(URL, { platform: "linux", env: { WAYLAND_DISPLAY: "wayland-0" } })?.command).toBe("xdg-open");
    expect(openerFor(URL, { platform: "linux", env: {} })).toBeUndefined();
    expect(openerFor(URL, { platform: "freebsd", env: {} })).toBeUndefined();
  });

  it("uses open on a Mac, but not over SSH", () => {
    expect(openerFor(URL, { platform: "darwin", env: {} })).toEqual({ command: "open", args: [URL] });
    expect(openerFor(URL, { platform: "darwin", env: { SSH_CONNECTION: "1 2 3 4" } })).toBeUndefined();
  });

  it("uses start on Windows, the URL quoted", () => {
    expect(openerFor(URL, { platform: "win32", env: {} })).toEqual({
      command: "cmd",
      args: ["/d", "/s", "/c", `start "" "${URL}"`],
      verbatim: true,
    });
  });

  it("opens nothing with --no-browser, or for a URL that is not http(s)", () => {
    expect(openerFor(URL, { platform: "linux", env: { DISPLAY: ":0" }, noBrowser: true })).toBeUndefined();
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "vscode://x", "not a url"]) {
      expect(openerFor(url, { platform: "darwin", env: {} })).toBeUndefined();
    }
  });
});
