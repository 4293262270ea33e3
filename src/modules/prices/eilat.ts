/** Eilat is a VAT-free zone: its shelf prices exclude VAT. Matches the stored (resolved) city name. */
export function isEilatCity(city: string | null): boolean {
  if (!city) return false;
  const c = city.trim().toLowerCase();
  return c === "אילת" || c === "eilat" || c === "2600";
}
