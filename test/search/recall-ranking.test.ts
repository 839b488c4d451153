import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import type { SearchHit } from "../../contracts/search.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { recallQuery } from "../../modules/search/recall-query.js";
import { ANSWER_TYPE_WEIGHT, answerTypeOf, holdsAnswerType, poolSize, QUESTION_WEIGHT, rankForRecall, TOOL_OUTPUT_WEIGHT } from "../../modules/search/recall-ranking.js";

let seq = 0;
function hit(message: Message, score: number, terms: string[] = []): SearchHit {
  const index = seq++;
  return { id: `h${index}`, index, score, message, terms };
}
const user = (content: string): Message => ({ role: "user", content });
const assistant = (content: string): Message => ({ role: "assistant", content });
const order = (ranked: ReturnType<typeof rankForRecall>) => ranked.map((r) => r.hit.id);

describe("recall ranking", () => {
  describe("answer types", () => {
    it("who → person, when / day / date → date or time, how many / size / limit → number, else none", () => {
      expect(answerTypeOf("Who is my boss over in payments?")).toBe("person");
      expect(answerTypeOf("Whose team owns invoicing?")).toBe("person");
      expect(answerTypeOf("When does the checkout go live?")).toBe("datetime");
      expect(answerTypeOf("What's the last day for checkout merges?")).toBe("datetime");
      expect(answerTypeOf("How many nodes are in staging?")).toBe("number");
      expect(answerTypeOf("What's the RAM size on the staging box?")).toBe("number");
      expect(answerTypeOf("Which queue did we choose for notifications?")).toBeUndefined();
      expect(answerTypeOf("What's the logo colour these days?")).toBeUndefined(); // "days" is not "day"
    });

    it("the first asked wins: 'who … when' asks for a person", () => {
      expect(answerTypeOf("Who said when the freeze starts?")).toBe("person");
      expect(answerTypeOf("When did we say who reviews it?")).toBe("datetime");
    });

    it("recognises names, dates and times, numbers", () => {
      expect(holdsAnswerType("Quick bit of context: Priya Raman manages payments.", "person")).toBe(true);
      expect(holdsAnswerType("ask @priya.r about it", "person")).toBe(true);
      expect(holdsAnswerType("The Payments dashboard is slow.", "person")).toBe(false); // "The" is a function word
      expect(holdsAnswerType("nobody owns it", "person")).toBe(false);
      for (const text of ["launch on 14 March", "on March 14th", "deploy it Friday", "from 2026-03-14", "at 9:30", "at 3 pm", "due 3/14"]) {
        expect(holdsAnswerType(text, "datetime"), text).toBe(true);
      }
      expect(holdsAnswerType("it was slow yesterday", "datetime")).toBe(false);
      expect(holdsAnswerType("64 GB of memory", "number")).toBe(true);
      expect(holdsAnswerType("plenty of memory", "number")).toBe(false);
    });
  });

  it("pool size: at least 80 candidates, 10 per hit kept", () => {
    expect(poolSize(8)).toBe(80);
    expect(poolSize(24)).toBe(240);
  });

  it("tool output is weighted down, but stays a candidate", () => {
    const tool = hit({ role: "tool", tool_call_id: "c1", content: "payments: 3 pods" }, 10);
    const call = hit({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] }, 9);
    const said = hit(user("payments moved to the new cluster"), 6);
    const ranked = rankForRecall("what happened to payments", [tool, call, said], 3);
    expect(order(ranked)[0]).toBe(said.id);
    expect(ranked.find((r) => r.hit === tool)).toMatchObject({ score: 10 * TOOL_OUTPUT_WEIGHT, notes: [`tool output ×${TOOL_OUTPUT_WEIGHT}`] });
    expect(ranked).toHaveLength(3);
  });

  it("a message holding the asked-for answer type moves up, with a note saying so", () => {
    const request = hit(user("Please document the payments dashboard."), 10);
    const statement = hit(user("By the way, Noor Varga manages the payments team."), 8);
    const ranked = rankForRecall("Who manages payments?", [request, statement], 2);
    expect(order(ranked)).toEqual([statement.id, request.id]);
    expect(ranked[0]).toMatchObject({ score: 8 * ANSWER_TYPE_WEIGHT, notes: [expect.stringContaining("name")] });
  });

  it("a message that matched only by its own question moves down when the query asks something", () => {
    const earlier = hit(user("Which database did we pick for invoicing in the end?"), 10, ["invoic", "databas"]);
    const answer = hit(user("Invoicing will run on Postgres."), 8, ["invoic"]);
    const ranked = rankForRecall("Which database is invoicing on?", [earlier, answer], 2);
    expect(order(ranked)).toEqual([answer.id, earlier.id]);
    expect(ranked[1]).toMatchObject({ score: 10 * QUESTION_WEIGHT });
    // A query that asks nothing leaves questions alone.
    expect(order(rankForRecall("invoicing database", [earlier, answer], 2))).toEqual([earlier.id, answer.id]);
  });

  it("diversity: near-duplicates give way to a message that differs (maximal marginal relevance)", () => {
    const copies = Array.from({ length: 6 }, (_, i) => hit(user(`Run the payments reconciliation job tests again ${i}`), 10 - i * 0.01));
    const different = hit(user("Dmitri said payments freezes on Friday."), 9);
    const ranked = rankForRecall("payments", [...copies, different], 3);
    expect(order(ranked)).toContain(different.id);
    expect(order(ranked)[0]).toBe(copies[0]!.id);
    // Without near-duplicates the order is the score order.
    const a = hit(user("alpha payments"), 3);
    const b = hit(user("beta ledger"), 2);
    const c = hit(user("gamma refunds"), 1);
    expect(order(rankForRecall("payments", [c, a, b], 3))).toEqual([a.id, b.id, c.id]);
  });

  it("deterministic, never more than asked, nothing for nothing", () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(user(`message ${i} about topic ${i % 4}`), 30 - (i % 7)));
    expect(order(rankForRecall("topic", hits, 8))).toEqual(order(rankForRecall("topic", hits, 8)));
    expect(rankForRecall("topic", hits, 8)).toHaveLength(8);
    expect(rankForRecall("topic", hits, 0)).toEqual([]);
    expect(rankForRecall("topic", [], 5)).toEqual([]);
  });

  it("over a real index: the statement answering an embedded question beats requests on the same topic", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 20; i++) history.push(user(`Please refactor the payments dashboard module ${i}.`), assistant(`Refactored the payments dashboard module ${i}.`));
    history.splice(30, 0, user("FYI, Ingrid Costa heads up payments and I report to her."));
    for (let i = 0; i < 40; i++) history.push(user(`Next: add tests for the search endpoint ${i}.`), assistant("Done."));
    const index = new HistorySearchIndex(() => history);
    // "payments" is in a third of the messages (pruned as too common were it not the only term that matches).
    const question = recallQuery("Next: add tests for the search endpoint 41. Quick question: who is my boss in payments?").text;
    expect(question).toBe("who is my boss in payments?");
    const pool = await index.search(question, { k: poolSize(8) });
    const top = rankForRecall(question, pool, 8).map((r) => r.hit.index);
    expect(top).toContain(30);
    expect(top.indexOf(30)).toBeLessThan(3);
  });
});
