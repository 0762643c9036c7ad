import { describe, expect, it } from "vitest";
import { callerAddress, callerKey, isIpAddress } from "./caller.js";

// The key per-caller limits count by: a subject and an address never share one; one client cannot be many callers.

describe("callerKey", () => {
  it("keys a subject and an address apart, even when they are spelled alike", () => {
    expect(callerKey("127.0.0.1", () => "127.0.0.1")).toBe("subject 127.0.0.1");
    expect(callerKey(undefined, () => "127.0.0.1")).toBe("address 127.0.0.1");
    expect(callerKey("address 127.0.0.1", undefined)).not.toBe(callerKey(undefined, () => "127.0.0.1"));
    expect(callerKey(undefined, () => undefined)).toBeUndefined();
    expect(callerKey(undefined, undefined)).toBeUndefined();
  });

  it("counts every address of one IPv6 /56 as one caller, however it is written", () => {
    const one = ["2001:db8:77::1", "2001:db8:77::2", "2001:0DB8:0077:00ff:ffff:ffff:ffff:ffff", "2001:db8:77::1%eth0"];
    expect(new Set(one.map(callerAddress))).toEqual(new Set(["2001:db8:77::/56"]));
    expect(callerAddress("2001:db8:77:100::1")).toBe("2001:db8:77:100::/56");
    expect(callerAddress("2001:db8:78::1")).toBe("2001:db8:78::/56");
    expect(callerAddress("::1")).toBe("::/56");
    expect(callerAddress("fe80::1:2:3:4")).toBe("fe80::/56");
  });

  it("counts an IPv4 address as itself, written IPv4-mapped (a dual-stack socket's form) or not", () => {
    for (const mapped of ["::ffff:10.0.0.1", "::FFFF:10.0.0.1", "::ffff:a00:1", "0:0:0:0:0:ffff:10.0.0.1"]) {
      expect(callerAddress(mapped)).toBe("10.0.0.1");
    }
    expect(callerAddress("10.0.0.1")).toBe("10.0.0.1");
  });

  it("keeps anything that is not an IPv6 address as it was given", () => {
    for (const other of ["", "unknown", "1::2::3", "1:2:3:4:5:6:7:8:9", "::ffff:10.0.0.256", "g::1", "x".repeat(100)]) {
      expect(callerAddress(other)).toBe(other);
    }
  });

  it("tells an IP address from anything else (isIpAddress)", () => {
    for (const ip of ["10.0.0.1", "255.255.255.255", "::1", "2001:db8::1", "::ffff:10.0.0.1", "fe80::1%eth0"]) {
      expect(isIpAddress(ip), ip).toBe(true);
    }
    for (const other of [
      "",
      "unknown",
      "10.0.0.256",
      "1.2.3",
      "1.2.3.4.5",
      "[::1]",
      "1.2.3.4:80",
      "1::2::3",
      "x".repeat(100),
    ]) {
      expect(isIpAddress(other), other).toBe(false);
    }
  });
});
