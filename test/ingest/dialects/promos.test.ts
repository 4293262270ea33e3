import { describe, expect, test } from "bun:test";
import { clubCode, parsePromos } from "../../../src/ingest/dialects/promos.ts";
import { scanXml } from "../../../src/ingest/files/xml-scan.ts";
import type { PromotionRecord } from "../../../src/ingest/records.ts";
import { promosOf } from "../../helpers/ingest/fixtures.ts";

const byCode = (promotions: PromotionRecord[], code: string) => promotions.find((p) => p.promotionCode === code)!;

describe("promotions, Cerberus (Promotions/Promotion, PromotionItems/Item, Clubs/ClubId)", () => {
  const file = promosOf("PromoFull7290058140886-013-202512120010");

  test("header and a full record", () => {
    expect(file).toMatchObject({ kind: "promos", chainCode: "7290058140886", subChainCode: "1", storeCode: "13" });
    expect(file.promotions.map((p) => p.promotionCode)).toEqual(["1353484", "1360001", "11958"]);
    expect(file.promotions[0]).toEqual({
      promotionCode: "1353484",
      description: "פטרוזליה/כוסברה 3ב8.90",
      startsAt: "2025-01-01T00:00:00+02:00",
      endsAt: "2026-01-03T23:59:00+02:00",
      updatedAt: "2025-03-13T00:00:00+02:00",
      rewardType: 1,
      discountType: null,
      minQty: 3,
      maxQty: null,
      discountedPrice: 890,
      discountRate: null,
      minPurchaseAmount: null,
      isClubOnly: false,
      isCoupon: false,
      isWeighted: false,
      allowMultiple: true,
      giftCount: 0,
      clubIds: ["0"],
      remarks: null,
      items: [
        { itemCode: "7290000000125", itemType: 1, isGift: false, minQty: null, maxQty: null, discountedPrice: null, discountRate: null },
        { itemCode: "7290000000126", itemType: 1, isGift: false, minQty: null, maxQty: null, discountedPrice: null, discountRate: null },
      ],
    });
  });

  test("club-only, coupon, gift item, DiscountRate 10000, MinPurchaseAmnt, 2015 dates, junk update date", () => {
    const p = byCode(file.promotions, "1360001");
    expect(p).toMatchObject({
      isClubOnly: true,
      clubIds: ["2", "5"],
      isCoupon: true,
      giftCount: 1,
      discountRate: 1,
      discountType: 0,
      minPurchaseAmount: 3050,
      minQty: 1,
      maxQty: 2,
      startsAt: "2015-06-01T08:00:00+03:00",
      endsAt: "2056-07-31T23:59:00+03:00",
      updatedAt: null,
    });
    expect(p.items.map((i) => [i.itemCode, i.isGift])).toEqual([
      ["7290100001111", false],
      ["7290100002222", true],
    ]);
  });

  test("2015 Osher Ad: several ItemId/ItemType pairs in one Item", () => {
    expect(byCode(file.promotions, "11958").items).toEqual([
      { itemCode: "194134", itemType: 0, isGift: false, minQty: null, maxQty: null, discountedPrice: null, discountRate: null },
      { itemCode: "194172", itemType: 0, isGift: false, minQty: null, maxQty: null, discountedPrice: null, discountRate: null },
    ]);
  });
});

describe("promotions, other dialects", () => {
  test("Matrix/Laib Sales/Sale: one row per item, grouped by PromotionID", () => {
    const file = promosOf("PromoFull7290696200003-001-202211020303-001.xml");
    expect(file).toMatchObject({ chainCode: "7290696200003", storeCode: "1" });
    expect(file.promotions).toHaveLength(2);
    const twoFor10 = byCode(file.promotions, "88001");
    expect(twoFor10).toMatchObject({ minQty: 2, maxQty: 4, discountedPrice: 1000, minPurchaseAmount: null, isClubOnly: false, remarks: "בכפוף למלאי", endsAt: "2022-11-30T23:59:00+02:00" });
    expect(twoFor10.items.map((i) => i.itemCode)).toEqual(["7290000066318", "7290000066325"]);
    const club = byCode(file.promotions, "88002");
    expect(club).toMatchObject({ isClubOnly: true, clubIds: ["3"], isCoupon: true, discountRate: 0.15, discountType: 0, minPurchaseAmount: 5000 });
  });

  test("Super-Pharm Details/Line: PromotionDetails, IsGiftItem per line", () => {
    const file = promosOf("PromoFull7290172900007-350-202410030634.xml");
    expect(file).toMatchObject({ chainCode: "7290172900007", subChainCode: "100", storeCode: "350" });
    expect(file.promotions).toHaveLength(1);
    expect(file.promotions[0]).toMatchObject({ promotionCode: "500100", description: "1+1 על קרמים", minQty: 2, discountedPrice: 1990 });
    expect(file.promotions[0]!.items.map((i) => [i.itemCode, i.isGift])).toEqual([
      ["7290000244143", false],
      ["7290000244150", true],
    ]);
  });

  test("2026 grouped: Groups/Group/PromotionItems/PromotionItem with per-item values", () => {
    const file = promosOf("PromoFull7290027600007-002-413-20260728-093000.xml");
    expect(file).toMatchObject({ chainCode: "7290027600007", subChainCode: "2", storeCode: "413" });
    const coupon = byCode(file.promotions, "2930148");
    expect(coupon).toMatchObject({
      isCoupon: true,
      isClubOnly: false,
      clubIds: ["0"],
      minPurchaseAmount: 20000,
      discountType: 1,
      rewardType: 0,
      minQty: 1,
      // items disagree: the promotion level has no single price
      discountedPrice: null,
      startsAt: "2021-10-19T00:00:00+03:00",
      endsAt: "2031-01-01T02:59:00+02:00",
      updatedAt: "2026-07-28T09:30:00+03:00",
      allowMultiple: true,
    });
    // The 0000000000000 basket-reward sentinel is not an item.
    expect(coupon.items).toEqual([
      { itemCode: "10181040009", itemType: 1, isGift: false, minQty: 1, maxQty: null, discountedPrice: 4650, discountRate: null, rewardType: 0 },
      { itemCode: "10181040313", itemType: 1, isGift: false, minQty: 1, maxQty: null, discountedPrice: 5650, discountRate: null, rewardType: 0 },
    ]);
    const club = byCode(file.promotions, "3100200");
    expect(club).toMatchObject({ isClubOnly: true, clubIds: ["3"], discountRate: 0.2, maxQty: 6, rewardType: 3, discountType: 0, isCoupon: false });
  });

  test("ClubID spellings", () => {
    expect(clubCode("0 - כלל הלקוחות")).toBe("0");
    expect(clubCode(" 003 - מועדון")).toBe("3");
    expect(clubCode("VIP")).toBe("VIP");
    // The all-customers name without its number is club 0, not a club-only promotion.
    expect(clubCode("כלל הלקוחות")).toBe("0");
    const doc = "<Root><Promotions><Promotion><PromotionId>7</PromotionId><ClubId>כלל הלקוחות</ClubId></Promotion><Promotion><PromotionId>8</PromotionId><ClubId>מועדון VIP</ClubId></Promotion></Promotions></Root>";
    expect(parsePromos(scanXml(doc).root).file.promotions.map((p) => [p.promotionCode, p.isClubOnly])).toEqual([["7", false], ["8", true]]);
    expect(clubCode("  ")).toBeNull();
  });

  test("rows without PromotionId are skipped and counted", () => {
    const doc = "<Root><Promotions><Promotion><PromotionDescription>x</PromotionDescription></Promotion></Promotions></Root>";
    const { file, warnings } = parsePromos(scanXml(doc).root);
    expect(file.promotions).toEqual([]);
    expect(warnings).toEqual(["1 promotion rows without PromotionId skipped"]);
  });
});
