/** Fills `products.category` from a name and manufacturer (the keyword classifier). */
export type Classifier = (name: string, manufacturer: string | null) => string | null;
