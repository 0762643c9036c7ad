import { describe, expect, it } from "vitest";
import { isLoopbackHost, isPublicAddress } from "./addresses.js";

const NOT_PUBLIC = [
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "100.64.0.1",
  "100.127.255.254",
  "127.0.0.1",
  "127.1.2.3",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.0.2.1",
  "192.88.99.1",
  "192.168.1.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "[::1]",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.0.0.1",
  "::ffff:8.8.8.8", // mapped: never followed, even to a public address
  "::127.0.0.1", // IPv4-compatible (deprecated)
  "64:ff9b::7f00:1", // NAT64 of a loopback
  "64:ff9b::808:808", // NAT64 at all: the embedded address decides where it goes
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "febf::1",
  "fec0::1",
  "ff02::1",
  "ff0e::1",
  "2001::1", // Teredo
  "2001:2::1", // benchmarking
  "2001:db8::1",
  "2002:7f00:1::1", // 6to4 of 127.0.0.1
  "3fff::1",
  "100::1", // discard-only
  "not-an-address",
  "example.com",
  "",
];

const PUBLIC = [
  "1.1.1.1",
  "8.8.8.8",
  "93.184.215.14",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.1",
  "192.169.0.1",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.254",
  "2606:4700:4700::1111",
  "2a00:1450:4001::200e",
  "[2001:4860:4860::8888]",
  "2400:cb00::1",
];

describe("isPublicAddress", () => {
  it.each(NOT_PUBLIC)("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it.each(PUBLIC)("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("isLoopbackHost", () => {
  it.each(["localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.9.9.9", "[::1]"])("%s is loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(["example.com", "localhost.example.com", "10.0.0.1", "128.0.0.1", "[::2]"])("%s is not", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
