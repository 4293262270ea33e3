import { FieldMap } from "./fields.ts";

/** Promotion fields in every dialect (research notes §4.2); also the per-item rows of Sales/Sale and Line. */
export const PROMO_FIELDS = new FieldMap({
  promotionCode: ["PromotionId", "PromotionID"],
  description: ["PromotionDescription", "PromotionDetails", "PromotionDesc"],
  updatedAt: ["PromotionUpdateDate", "PromotionUpdateTime", "PromotionUpdateDateTime", "PriceUpdateDate"],
  startDate: ["PromotionStartDate", "PromotionStartDateTime"],
  startHour: ["PromotionStartHour"],
  endDate: ["PromotionEndDate", "PromotionEndDateTime"],
  endHour: ["PromotionEndHour"],
  rewardType: ["RewardType"],
  discountType: ["DiscountType"],
  minQty: ["MinQty"],
  maxQty: ["MaxQty", "MAXQTY"],
  discountedPrice: ["DiscountedPrice"],
  discountRate: ["DiscountRate"],
  minPurchaseAmount: ["MinPurchaseAmnt", "MinPurchaseAmount", "MinAmount", "AdditionalMinBasketAmount", "AdditionalsMinBasketAmount"],
  isCoupon: ["AdditionalIsCoupon", "AdditionalsCoupon", "IsCoupon"],
  giftCount: ["AdditionalGiftCount", "AdditionalsGiftCount"],
  isWeighted: ["IsWeightedPromo"],
  allowMultiple: ["AllowMultipleDiscounts"],
  remarks: ["Remarks", "Remark"],
  clubs: ["Clubs"],
  clubId: ["ClubId", "ClubID", "Club"],
  isGift: ["IsGiftItem", "IsGift"],
  restrictions: ["AdditionalRestrictions"],
  items: ["PromotionItems", "Items"],
  // Bina-family files list what the promotion gives away apart, with their own item codes.
  gifts: ["GiftsItems", "GiftItems", "GiftsItem"],
  groups: ["Groups"],
  // Per-item rows (Matrix `Sale`, Super-Pharm `Line`) carry the item on the promotion row.
  itemCode: ["ItemCode", "ItemId"],
  itemType: ["ItemType"],
});

/** Fields of one promoted item (`PromotionItems/Item`, 2026 `PromotionItem`). */
export const PROMO_ITEM_FIELDS = new FieldMap({
  itemCode: ["ItemCode", "ItemId"],
  itemType: ["ItemType"],
  isGift: ["IsGiftItem", "IsGift"],
  rewardType: ["RewardType"],
  minQty: ["MinQty"],
  maxQty: ["MaxQty", "MAXQTY"],
  discountedPrice: ["DiscountedPrice"],
  discountRate: ["DiscountRate"],
});

/** Fields of a 2026 `Group`. */
export const PROMO_GROUP_FIELDS = new FieldMap({
  minPurchaseAmount: ["MinPurchaseAmount", "MinPurchaseAmnt"],
  discountType: ["DiscountType"],
  items: ["PromotionItems"],
});
