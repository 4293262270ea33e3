/**
 * A small LRU of computed answers that depend only on the data version and on which promotions
 * are active. Entries are dropped when the data version changes, and each expires at the next
 * promotion start or end that could change it (`validUntil`), so a cached answer is always the
 * answer a fresh computation would give. Bounded by a total weight (e.g. price entries held).
 */
export class ResultCache<V> {
  /**
   * Oldest (re)insertion first (a Map iterates in insertion order); `used`: hit since then. Eviction
   * is least-recently-used approximated by a second chance (CLOCK): a hit only marks its entry, and
   * the eviction walk from the oldest end moves a marked entry to the newest end, unmarked, instead
   * of dropping it. A Map delete and set on every hit was most of a lookup's cost (a batch makes
   * 100), and moving only entries in the older half still did that on most hits once more than
   * half the entries were in use.
   */
  private readonly entries = new Map<string, Entry<V>>();
  /**
   * The same entries by group and member, for keys `fileUnder` splits (see ResultCache's
   * constructor): a caller asking many members of one group (the batch's 100 barcodes with the
   * same filters) finds each by its short member name, without building and hashing its full key.
   */
  private readonly groups = new Map<string, Map<MemberKey, Entry<V>>>();
  private cacheVersion = -1;
  private weight = 0;

  constructor(
    private readonly maxWeight: number,
    /** A key's group and member, or undefined for a key held by its key alone (read on set only). */
    private readonly fileUnder?: (key: string) => { group: string; member: string } | undefined,
  ) {}

  get(version: number, key: string, now: number): V | undefined {
    if (version !== this.cacheVersion) {
      this.reset(version);
      return undefined;
    }
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now >= entry.validUntil) {
      this.remove(key);
      return undefined;
    }
    entry.used = true;
    return entry.value;
  }

  /**
   * The entries of one group, by member (see fileUnder), valid at `now` for `version`; an entry
   * not found here (expired, another version, not filed) is get's to answer.
   */
  member(version: number, group: string, now: number): (member: string) => V | undefined {
    const entries = this.memberEntries(version, group, now);
    return (member) => entries(member)?.value;
  }

  /**
   * member, giving the entry itself (its value, and the slot for what a caller derives from it:
   * see HeldEntry), for a caller reading many entries at once.
   */
  memberEntries(version: number, group: string, now: number): (member: string) => HeldEntry<V> | undefined {
    const members = version === this.cacheVersion ? this.groups.get(group) : undefined;
    return (member) => {
      const entry = members?.get(memberKey(member));
      if (!entry || now >= entry.validUntil) return undefined;
      entry.used = true;
      return entry;
    };
  }

  /** One member's entry of a group (see member), valid at `now` for `version`, without a function made for the group. */
  memberEntry(version: number, group: string, member: string, now: number): V | undefined {
    if (version !== this.cacheVersion) return undefined;
    const entry = this.groups.get(group)?.get(memberKey(member));
    if (!entry || now >= entry.validUntil) return undefined;
    entry.used = true;
    return entry.value;
  }

  set(version: number, key: string, value: V, validUntil: number, weight: number): void {
    if (version !== this.cacheVersion) this.reset(version);
    if (weight > this.maxWeight) return;
    this.remove(key);
    const filed = this.fileUnder?.(key);
    const added: Entry<V> = { value, validUntil, weight, used: false, filed, derived: undefined };
    this.entries.set(key, added);
    if (filed) {
      let members = this.groups.get(filed.group);
      if (!members) this.groups.set(filed.group, (members = new Map()));
      members.set(memberKey(filed.member), added);
    }
    this.weight += weight;
    // Entries moved to the newest end are met again, unmarked, if the walk gets that far; the
    // entry just added is passed over (it is the newest use).
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight) break;
      if (entry === added) continue;
      if (entry.used) {
        entry.used = false;
        this.entries.delete(oldest);
        this.entries.set(oldest, entry);
      } else this.remove(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Total weight of the entries held (at most the bound). */
  get heldWeight(): number {
    return this.weight;
  }

  /** The data version the entries belong to (-1 before the first). */
  get version(): number {
    return this.cacheVersion;
  }

  /** Starts holding entries of `version` (dropping others), as the first get or set would. */
  begin(version: number): void {
    if (version !== this.cacheVersion) this.reset(version);
  }

  /** An entry still valid at `now`, whatever its version, without marking it used. */
  peek(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && now < entry.validUntil ? entry.value : undefined;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
    const { filed } = entry;
    if (filed) {
      const members = this.groups.get(filed.group);
      const key = memberKey(filed.member);
      if (members?.get(key) === entry) {
        members.delete(key);
        if (members.size === 0) this.groups.delete(filed.group);
      }
    }
  }

  private reset(version: number): void {
    this.entries.clear();
    // Emptied, not only dropped: a member lookup made before (see member) finds nothing in them.
    for (const members of this.groups.values()) members.clear();
    this.groups.clear();
    this.weight = 0;
    this.cacheVersion = version;
  }
}

/** A member name as a group's map holds it (see memberKey). */
type MemberKey = string | number;

/**
 * A member name as a group's map holds it: up to 15 digits without a leading zero (most barcodes)
 * as their number, anything else as it is — one key per name either way. A number is compared
 * where the map holds it; a string key sends each lookup on to the held string's text, memory
 * that a batch's 100 lookups each waited on when the caches were cold.
 */
function memberKey(member: string): MemberKey {
  const n = member.length;
  if (n === 0 || n > 15 || member.charCodeAt(0) === 48) return member;
  // The number read as the digits are checked (exact: 15 digits stay below 2^53); Number(member)
  // after the check cost a third of a batch's lookups.
  let value = 0;
  for (let i = 0; i < n; i++) {
    const digit = member.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return member;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A cached entry as memberEntries gives it: its value, and `derived`, a slot for one value a
 * caller derives from it (made on first use, kept with the entry and dropped with it; one kind of
 * derived value per cache): a caller reading that for many entries at once finds it on the entry,
 * not through the value's own objects (see AnswerCache.heldEntriesIn).
 */
export interface HeldEntry<V> {
  readonly value: V;
  derived: unknown;
}

interface Entry<V> extends HeldEntry<V> {
  value: V;
  validUntil: number;
  weight: number;
  /** Hit since its last move in the eviction order (see entries). */
  used: boolean;
  /** Its group and member, when filed under one (see groups). */
  filed: { group: string; member: string } | undefined;
}
