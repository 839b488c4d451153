/** The image formulas, against the figures the providers publish. */
import { describe, expect, it } from "vitest";
import {
  anthropicPixelTokens,
  DEFAULT_TILE_PRICE,
  geminiTileTokens,
  imagePricingFor,
  imageTokens,
  openAiTileTokens,
} from "../index.js";

describe("OpenAI tile formula", () => {
  const tiles = (w: number, h: number, detail: "low" | "high" | "auto" = "high") => openAiTileTokens(DEFAULT_TILE_PRICE, w, h, detail);

  it("low detail is a flat 85, whatever the size", () => {
    expect(tiles(4096, 8192, "low")).toBe(85);
    expect(tiles(10, 10, "low")).toBe(85);
  });

  it("OpenAI's worked examples: 1024² → 765, 2048×4096 → 1105", () => {
    expect(tiles(1024, 1024)).toBe(765); // → 768×768, 4 tiles
    expect(tiles(2048, 4096)).toBe(1105); // → 1024×2048 → 768×1536, 6 tiles
  });

  it("small images are never scaled up: 512×512 is one tile, 100×100 too", () => {
    expect(tiles(512, 512)).toBe(255);
    expect(tiles(100, 100)).toBe(255);
    expect(tiles(513, 100)).toBe(85 + 2 * 170);
  });

  it("auto prices like high", () => {
    expect(tiles(1024, 1024, "auto")).toBe(765);
  });

  it("no dimensions: the formula's maximum, 8 tiles = 1445 (low stays 85)", () => {
    expect(openAiTileTokens(DEFAULT_TILE_PRICE, undefined, undefined, "high")).toBe(1445);
    expect(openAiTileTokens(DEFAULT_TILE_PRICE, undefined, undefined, "low")).toBe(85);
    // and no real image costs more than that default
    for (const [w, h] of [[768, 2048], [700, 5000], [4000, 4000], [1, 9000]] as const) expect(tiles(w, h)).toBeLessThanOrEqual(1445);
  });
});

describe("Anthropic pixel formula", () => {
  it("⌈w·h / 750⌉ below the limits", () => {
    expect(anthropicPixelTokens(200, 200)).toBe(54);
    expect(anthropicPixelTokens(1000, 1000)).toBe(1334);
    expect(anthropicPixelTokens(1092, 1092)).toBe(1590); // Anthropic's 1:1 maximum size
  });

  it("larger images are scaled down first: never more than 1600", () => {
    expect(anthropicPixelTokens(4000, 3000)).toBe(1600);
    // long edge over 1568: 3136×200 → 1568×100
    expect(anthropicPixelTokens(3136, 200)).toBe(Math.ceil((1568 * 100) / 750));
  });
});

describe("Gemini tiles", () => {
  it("258 per image up to 384×384, else 258 per 768×768 tile", () => {
    expect(geminiTileTokens(384, 384)).toBe(258);
    expect(geminiTileTokens(385, 100)).toBe(258);
    expect(geminiTileTokens(1536, 1536)).toBe(4 * 258);
    expect(geminiTileTokens(1537, 768)).toBe(3 * 258);
  });
});

describe("imageTokens picks the rule by family", () => {
  it("openai, llama and unknown models use tiles; anthropic pixels; gemini its tiles", () => {
    expect(imageTokens(imagePricingFor("openai"), 1024, 1024)).toBe(765);
    expect(imageTokens(imagePricingFor("llama"), 1024, 1024)).toBe(765);
    expect(imageTokens(imagePricingFor("other"), 1024, 1024)).toBe(765);
    expect(imageTokens(imagePricingFor("anthropic"), 1024, 1024)).toBe(Math.ceil((1024 * 1024) / 750));
    expect(imageTokens(imagePricingFor("gemini"), 1024, 1024)).toBe(4 * 258);
  });

  it("non-positive or non-finite sizes count as unknown", () => {
    const openai = imagePricingFor("openai");
    expect(imageTokens(openai, 0, 100)).toBe(1445);
    expect(imageTokens(openai, Number.NaN, 100)).toBe(1445);
    expect(imageTokens(imagePricingFor("anthropic"), -5, 100)).toBe(1600);
  });
});
