import { describe, expect, it } from "vitest";
import { andThen, attempt, isPromiseLike } from "./maybe.js";

// A PromiseLike that is not a Promise (the type says Promise; the runtime takes any thenable).
function thenable<T>(value: T): Promise<T> {
  // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this tests.
  const like: PromiseLike<T> = { then: (onFulfilled) => Promise.resolve(value).then(onFulfilled) };
  return like as Promise<T>;
}

describe("andThen", () => {
  it("a plain value: next runs now and its result comes back as is, no promise", () => {
    const order: string[] = [];
    const result = andThen(20, (value) => {
      order.push("next");
      return value + 1;
    });
    order.push("returned");
    expect(result).toBe(21);
    expect(isPromiseLike(result)).toBe(false);
    expect(order).toEqual(["next", "returned"]);
  });

  it("falsy values are values, not pending: undefined, null, 0, empty string", () => {
    for (const value of [undefined, null, 0, ""]) {
      const seen: unknown[] = [];
      const result = andThen<unknown, string>(value, (v) => {
        seen.push(v);
        return "done";
      });
      expect(result).toBe("done");
      expect(seen).toEqual([value]);
    }
  });

  it("a promise: next waits for it and a promise comes back", async () => {
    let calls = 0;
    const result = andThen(Promise.resolve(2), (value) => {
      calls++;
      return value * 10;
    });
    expect(result).toBeInstanceOf(Promise);
    expect(calls).toBe(0);
    expect(await result).toBe(20);
    expect(calls).toBe(1);
  });

  it("a thenable that is not a Promise counts as pending", async () => {
    const result = andThen(thenable("x"), (value) => `${value}!`);
    expect(isPromiseLike(result)).toBe(true);
    expect(await result).toBe("x!");
  });

  it("next may return a promise from a plain value: that promise comes back", async () => {
    const later = Promise.resolve("later");
    const result = andThen(1, () => later);
    expect(result).toBe(later);
    expect(await result).toBe("later");
  });

  it("a synchronous throw from next reaches the caller synchronously", () => {
    const boom = new Error("boom");
    expect(() =>
      andThen(1, () => {
        throw boom;
      }),
    ).toThrow(boom);
  });

  it("a rejection skips next and rejects the result", async () => {
    let calls = 0;
    const boom = new Error("rejected");
    const result = andThen(Promise.reject(boom), () => {
      calls++;
      return "never";
    });
    await expect(result).rejects.toBe(boom);
    expect(calls).toBe(0);
  });

  it("a throw from next after a promise rejects the result", async () => {
    const boom = new Error("late boom");
    const result = andThen(Promise.resolve(1), () => {
      throw boom;
    });
    await expect(result).rejects.toBe(boom);
  });
});

describe("attempt", () => {
  it("a synchronous body's value comes back as is, recover not called", () => {
    let recovered = 0;
    const result = attempt(
      () => "fine",
      () => {
        recovered++;
        return "recovered";
      },
    );
    expect(result).toBe("fine");
    expect(isPromiseLike(result)).toBe(false);
    expect(recovered).toBe(0);
  });

  it("a synchronous throw goes to recover, whose value comes back synchronously", () => {
    const boom = new Error("sync throw");
    const seen: unknown[] = [];
    const result = attempt<string>(
      () => {
        throw boom;
      },
      (error) => {
        seen.push(error);
        return "recovered";
      },
    );
    expect(result).toBe("recovered");
    expect(isPromiseLike(result)).toBe(false);
    expect(seen).toEqual([boom]);
  });

  it("a rejection goes to recover with its reason; the result is a promise of recover's value", async () => {
    const boom = new Error("async reject");
    const seen: unknown[] = [];
    const result = attempt<string>(
      () => Promise.reject(boom),
      (error) => {
        seen.push(error);
        return "recovered";
      },
    );
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe("recovered");
    expect(seen).toEqual([boom]);
  });

  it("a promise that fulfils comes back fulfilled, recover not called", async () => {
    let recovered = 0;
    const result = attempt(
      () => Promise.resolve(5),
      () => {
        recovered++;
        return 0;
      },
    );
    expect(isPromiseLike(result)).toBe(true);
    expect(await result).toBe(5);
    expect(recovered).toBe(0);
  });

  it("recover may rethrow: synchronously for a sync throw, as a rejection for a rejected promise", async () => {
    const first = new Error("first");
    const second = new Error("second");
    expect(() =>
      attempt(
        () => {
          throw first;
        },
        () => {
          throw second;
        },
      ),
    ).toThrow(second);
    await expect(
      attempt(
        () => Promise.reject(first),
        () => {
          throw second;
        },
      ),
    ).rejects.toBe(second);
  });

  it("recover may answer with a promise", async () => {
    const result = attempt<string>(
      () => {
        throw new Error("x");
      },
      () => Promise.resolve("later"),
    );
    expect(await result).toBe("later");
  });

  it("composes with andThen: a throw inside a synchronous chain is recovered synchronously", () => {
    const result = attempt(
      () =>
        andThen(1, (value) => {
          if (value === 1) throw new Error("one");
          return "no";
        }),
      (error) => `recovered: ${(error as Error).message}`,
    );
    expect(result).toBe("recovered: one");
  });

  it("a rejected thenable goes to recover", async () => {
    const like: PromiseLike<string> = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this tests.
      then: (_onFulfilled, onRejected) => Promise.reject(new Error("nope")).then(undefined, onRejected),
    };
    const rejecting = like as Promise<string>;
    expect(
      await attempt(
        () => rejecting,
        (error) => `got ${(error as Error).message}`,
      ),
    ).toBe("got nope");
  });
});
