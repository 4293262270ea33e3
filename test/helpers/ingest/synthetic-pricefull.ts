/**
 * A synthetic Cerberus-style PriceFull (BOM, CRLF, pretty-printed `Root/Items/Item`, ~780 bytes
 * per item) for parse-speed measurements and large-file tests. Deterministic per `seed`.
 */
export function syntheticPriceFull(items: number, seed = 1): string {
  const words = ["חלב", "גבינה", "לחם", "שוקולד", "במבה", "קפה", "תה", "אורז", "פסטה", "שמן"];
  const units = [
    ["גרמים", "100 גרם", "500.00"],
    ["מיליליטרים", '100 מ"ל', "1000.00"],
    ["יחידה", "יחידה", "1"],
    ["00000", "00000", "0"],
  ] as const;
  const parts: string[] = [
    "\uFEFF<Root>\r\n  <XmlDocVersion>19</XmlDocVersion>\r\n  <ChainId>7290058140886</ChainId>\r\n  <SubChainId>1</SubChainId>\r\n" +
      `  <StoreId>013</StoreId>\r\n  <BikoretNo>7</BikoretNo>\r\n  <DllVerNo>9.4.0.50</DllVerNo>\r\n  <Items Count="${items}">\r\n`,
  ];
  for (let i = 0; i < items; i++) {
    const u = units[i % 4]!;
    const w = words[(i * 7 + seed) % 10]!;
    const name = u[0] === "00000" ? `${w} טעים ${(i % 9) + 1}00 גרם` : `${w} ${words[i % 10]} ${i}`;
    const day = `2025-0${((i + seed) % 9) + 1}-1${i % 10}`;
    parts.push(
      `    <Item>\r\n      <PriceUpdateDate>${day} 0${i % 10}:1${i % 6}:00</PriceUpdateDate>\r\n` +
        `      <ItemCode>729${String(1_000_000_000 + i * 37 + seed).slice(0, 10)}</ItemCode>\r\n      <ItemType>1</ItemType>\r\n` +
        `      <ItemName>${name}</ItemName>\r\n      <ManufacturerName>${i % 3 ? "תנובה" : "לא ידוע"}</ManufacturerName>\r\n` +
        `      <ManufactureCountry>ישראל</ManufactureCountry>\r\n      <ManufacturerItemDescription>${name}</ManufacturerItemDescription>\r\n` +
        `      <UnitQty>${u[0]}</UnitQty>\r\n      <Quantity>${u[2]}</Quantity>\r\n      <UnitOfMeasure>${u[1].replace('"', "&quot;")}</UnitOfMeasure>\r\n` +
        `      <bIsWeighted>${i % 50 === 0 ? 1 : 0}</bIsWeighted>\r\n      <QtyInPackage>לא ידוע</QtyInPackage>\r\n` +
        `      <ItemPrice>${(i % 97) + 1}.${String(i % 100).padStart(2, "0")}</ItemPrice>\r\n      <UnitOfMeasurePrice>0.0295</UnitOfMeasurePrice>\r\n` +
        `      <AllowDiscount>1</AllowDiscount>\r\n      <ItemStatus>1</ItemStatus>\r\n    </Item>\r\n`,
    );
  }
  parts.push("  </Items>\r\n</Root>\r\n");
  return parts.join("");
}
