import type { Item } from "./assortment.ts";

/** The size fields of a price row, spelled the way each dialect spells them. */
export interface Measure {
  unitQty: string;
  quantity: string;
  unitOfMeasure: string;
  unitPrice: string;
  qtyInPackage: string;
}

export type MeasureStyle = "cerberus" | "cerberus-gram" | "bina" | "bina-zero" | "matrix" | "superpharm" | "modern";

const KG = 'ק"ג';

/**
 * @example measure(milk1l, 690, "cerberus") // { unitQty: "מיליליטרים", quantity: "1000.00", unitOfMeasure: '100 מ"ל', unitPrice: "0.69", … }
 */
export function measure(item: Item, price: number, style: MeasureStyle): Measure {
  const size = item.size;
  const weighted = item.weighted || !size;
  const total = size ? size.count * size.each : 1;
  const per100 = size && (size.unit === "g" || size.unit === "ml") ? (price / 100) * (100 / total) : price / 100 / total;
  const two = (n: number) => n.toFixed(2);

  switch (style) {
    case "cerberus":
    case "cerberus-gram": {
      if (weighted) return { unitQty: KG, quantity: "1.00", unitOfMeasure: KG, unitPrice: two(price / 100), qtyInPackage: style === "cerberus-gram" ? "לא ידוע" : "1" };
      const words = { g: ["גרמים", "100 גרם"], ml: ["מיליליטרים", '100 מ"ל'], unit: ["יחידה", "יחידה"], m: ["מטרים", "מטר"] }[size!.unit];
      const unitPrice = style === "cerberus-gram" && size!.unit !== "unit" && size!.unit !== "m" ? (per100 / 100).toFixed(4) : two(per100);
      return { unitQty: words[0]!, quantity: two(total), unitOfMeasure: words[1]!, unitPrice, qtyInPackage: style === "cerberus-gram" ? "לא ידוע" : "1" };
    }
    case "bina-zero":
      return { unitQty: "00000", quantity: "1", unitOfMeasure: "00000", unitPrice: (price / 100).toFixed(4), qtyInPackage: "0.0000" };
    case "bina": {
      if (weighted) return { unitQty: KG, quantity: "1", unitOfMeasure: KG, unitPrice: (price / 100).toFixed(4), qtyInPackage: "0.0000" };
      const litres = size!.unit === "ml" && total >= 1000;
      const unitQty = litres ? "ליטר" : { g: "גרם", ml: 'מ"ל', unit: "יחידות", m: "מטרים" }[size!.unit];
      const quantity = litres ? String(total / 1000) : String(total);
      const unitOfMeasure = { g: "100 גרם", ml: '100 מ"ל', unit: "יחידה", m: "מטר" }[size!.unit];
      return { unitQty, quantity, unitOfMeasure, unitPrice: per100.toFixed(4), qtyInPackage: "0.0000" };
    }
    case "matrix": {
      if (weighted) return { unitQty: KG, quantity: "1", unitOfMeasure: "", unitPrice: two(price / 100), qtyInPackage: "1" };
      const unitQty = { g: "גרם", ml: 'מ"ל', unit: "'יח", m: "מטר" }[size!.unit];
      const unitOfMeasure = { g: "ל-100 גרם", ml: 'ל-100 מ"ל', unit: "", m: "" }[size!.unit];
      return { unitQty, quantity: String(total), unitOfMeasure, unitPrice: two(per100), qtyInPackage: "1" };
    }
    case "superpharm": {
      if (weighted) return { unitQty: "", quantity: "0.00", unitOfMeasure: "100.00", unitPrice: "0.00", qtyInPackage: "1.00" };
      const unitQty = { g: "גרם", ml: 'מ"ל', unit: "", m: "" }[size!.unit];
      return { unitQty, quantity: unitQty ? two(total) : "0.00", unitOfMeasure: "100.00", unitPrice: unitQty ? two(per100) : "0.00", qtyInPackage: two(size!.unit === "unit" ? total : 1) };
    }
    case "modern": {
      if (weighted) return { unitQty: KG, quantity: "1.00", unitOfMeasure: KG, unitPrice: two(price / 100), qtyInPackage: "0" };
      const words = { g: ["גרם", "100 גרם"], ml: ["מיליליטר", "100 מיליליטר"], unit: ["יחידות", "יחידות"], m: ["מטרים", "מטרים"] }[size!.unit];
      return { unitQty: words[0]!, quantity: two(total), unitOfMeasure: words[1]!, unitPrice: two(per100), qtyInPackage: "1" };
    }
  }
}
