/**
 * A rebuilt index answers as recorded (test/helpers/search/rebuild-answers.ts): work on the
 * speed of the rebuild (analysis, indexing) must leave every answer exactly as it was.
 */
import { expect, test } from "bun:test";
import { setLogLevel } from "../../src/lib/log.ts";
import { ANSWERS_PATH, recordAnswers, type RecordedAnswers } from "../helpers/search/rebuild-answers.ts";

test("a rebuilt index gives the recorded answers: totals, first pages, categories", async () => {
  setLogLevel("warn");
  const recorded = (await Bun.file(ANSWERS_PATH).json()) as RecordedAnswers;
  const answers = await recordAnswers();
  expect(Object.keys(recorded.queries).length).toBeGreaterThan(300);
  expect(answers.queries).toEqual(recorded.queries);
  expect(answers.categories).toEqual(recorded.categories);
}, 60_000);

test("an index rebuilt from a database file (rows read and analysed by the rebuild's worker) gives the same answers", async () => {
  setLogLevel("warn");
  const recorded = (await Bun.file(ANSWERS_PATH).json()) as RecordedAnswers;
  const answers = await recordAnswers(true);
  expect(answers.queries).toEqual(recorded.queries);
  expect(answers.categories).toEqual(recorded.categories);
}, 60_000);
