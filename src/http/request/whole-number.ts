import * as z from "zod";

/**
 * A whole-number query parameter between `min` and `max`: plain decimal digits only, so `0x10`,
 * `1e1`, `+5` or `3.0` are refused (`Number()` would read them as 16, 10, 5 and 3).
 *
 * @example WholeNumber(1, 24, 12).parse("6") // 6
 */
export function WholeNumber(min: number, max: number, fallback: number) {
  return digits(min, max).default(fallback).meta({ type: "integer", minimum: min, maximum: max });
}

/** WholeNumber without a default: undefined when the parameter is absent. */
export function OptionalWholeNumber(min: number, max: number) {
  return digits(min, max).optional().meta({ type: "integer", minimum: min, maximum: max });
}

/** Decimal digits read as a whole number from `min` to `max`, one message for every way to miss. */
function digits(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,6}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
}
