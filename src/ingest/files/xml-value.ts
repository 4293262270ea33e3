/** The document shape (that of `Bun.XML.parse`): `@attr`, `#text`, repeated children as arrays, leaves as strings. */
export type XmlValue = string | XmlNode | XmlValue[];
export interface XmlNode {
  [key: string]: XmlValue;
}
