import type * as z from "zod";
import { ApiError } from "../../errors/api-error.ts";

/**
 * How a refused input is told: one sentence naming the parameter or member and what it must be —
 * "`limit` must be a whole number from 1 to 100." A schema gives its own rule as a phrase that
 * follows the name ("must be a chain id: …"); every other rule's phrase comes from `mustBe`, so no
 * answer carries the validator's own wording ("Invalid input: expected string, received undefined"),
 * which speaks of zod's types, not of the API.
 */

/** `["items", 3, "quantity"]` → `items[3].quantity` (`fallback` for the whole value: "body", "query"). */
export function paramPath(path: readonly PropertyKey[], fallback = "body"): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += (out ? "." : "") + String(part);
  }
  return out || fallback;
}

const TYPES: Record<string, string> = {
  string: "must be a string",
  number: "must be a number",
  int: "must be a whole number",
  bigint: "must be a whole number",
  boolean: "must be true or false",
  object: "must be a JSON object",
  array: "must be a JSON array",
  null: "must be null",
};

/** A value as the documentation writes it: `chain`, `true`. */
const shown = (value: unknown) => `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;

/**
 * zod's error map for the rules a schema gives no phrase of its own: what the value must be, as a
 * phrase following its name. Parse with `schema.safeParse(value, { error: mustBe })` (a schema's own
 * message wins over it).
 */
export function mustBe(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return Object.hasOwn(TYPES, issue.expected) ? TYPES[issue.expected]! : "has the wrong type";
    case "too_small": {
      const n = Number(issue.minimum);
      if (issue.origin === "string") return n === 1 ? "must not be empty" : `must be at least ${n} characters long`;
      if (issue.origin === "array" || issue.origin === "set") return n === 1 ? "must hold at least one item" : `must hold at least ${n} items`;
      return issue.inclusive === false ? `must be above ${n}` : `must be at least ${n}`;
    }
    case "too_big": {
      const n = Number(issue.maximum);
      if (issue.origin === "string") return `must be at most ${n} characters long`;
      if (issue.origin === "array" || issue.origin === "set") return `must hold at most ${n} items`;
      return issue.inclusive === false ? `must be below ${n}` : `must be at most ${n}`;
    }
    case "invalid_value":
      return issue.values.length === 1 ? `must be ${shown(issue.values[0])}` : `must be one of ${issue.values.map(shown).join(", ")}`;
    case "unrecognized_keys":
      // Told of the member itself (refusedInput names the first unknown key).
      return "is not a member this request takes; leave it out";
    case "invalid_format":
      return issue.format === "regex" ? "has the wrong format" : `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return "does not match any of the accepted forms";
    default:
      return "is not valid";
  }
}

const WHOLE: Record<string, string> = { body: "The request body", query: "The query string", path: "The request's path", arguments: "The arguments" };

/** Whom a sentence is about: the parameter or member, or the whole body, query, path or arguments. */
const subjectOf = (param: string) => (Object.hasOwn(WHOLE, param) ? WHOLE[param] : `\`${param}\``);

/**
 * The first issue of a failed parse as the parameter it is about (`items[3].quantity`; an
 * unexpected member is named itself) and the sentence telling it; `whole` names the whole value.
 * @example refusedInput(Limit.safeParse("0", { error: mustBe }).error!.issues, "query") // { param: "query", detail: "The query string must be …" }
 */
export function refusedInput(issues: readonly z.core.$ZodIssue[], whole: string): { param: string; detail: string } {
  const issue = issues[0]!;
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const param = paramPath(keys.length > 0 ? [...issue.path, keys[0]!] : issue.path, whole);
  return { param, detail: `${subjectOf(param)} ${issue.message.replace(/\.$/, "")}.` };
}

/** A failed parse as 400 `invalid_parameter` naming the parameter (see refusedInput). */
export function invalidInput(issues: readonly z.core.$ZodIssue[], whole: string): ApiError {
  const { param, detail } = refusedInput(issues, whole);
  return new ApiError("invalid_parameter", detail, { param });
}

/** 400 `invalid_parameter` for a whole value refused without an issue to tell (a validator other than zod's). */
export function invalidWhole(whole: string): ApiError {
  return new ApiError("invalid_parameter", `${subjectOf(whole)} is not valid.`, { param: whole });
}
