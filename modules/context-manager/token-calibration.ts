/**
 * Calibration of the token counter's safety factor from what providers bill (contracts/TOKENS.md §8).
 *
 * Each observation pairs the RAW count of a request (the model's encoding, factor 1: messages +
 * priming + tools, exactly what the window was cut on before the factor) with the input tokens
 * the provider billed for it. The ratio billed / raw is what the factor has to cover.
 *
 * | rule                | value                                                                  |
 * |---------------------|------------------------------------------------------------------------|
 * | ratio               | billed inputTokens / raw counted tokens of the same request            |
 * | rejected reports    | billed or counted not a positive finite number; ratio < 0.5 or > 4     |
 * | kept                | the last 32 accepted ratios per model                                  |
 * | applies             | from the 3rd accepted ratio on; before that, the model's default factor |
 * | factor              | p95 (nearest rank) of the kept ratios × 1.01, rounded UP to 0.01       |
 * | bounds              | never below 1.0 (the encoding's own count), never above 2.0            |
 *
 * p95 over at most 32 ratios is the largest ratio until 20 are kept: a window sized with it is
 * at least as large, counted, as any recent bill of the same shape, plus 1 % headroom. Rounding to
 * 0.01 keeps the factor (and so the window's cut) still while the ratios barely move, which keeps
 * the provider's prompt cache hitting.
 *
 * The record is plain JSON (`toJSON()` / `TokenCalibration.fromJSON()`), versioned, validated on
 * load; context-persistent keeps it beside the session (`<sessionId>.calibration.json`).
 */
import { createError } from "@amplifier-ts/contracts";
import { getModelInfo, normalizeModelName } from "@amplifier-ts/tokens";

/** The calibration bounds and windowing, fixed and documented (contracts/TOKENS.md §8). */
export const CALIBRATION_RULES = Object.freeze({
  minFactor: 1.0,
  maxFactor: 2.0,
  minRatio: 0.5,
  maxRatio: 4,
  keep: 32,
  minSamples: 3,
  quantile: 0.95,
  headroom: 0.01,
});

/** The persisted shape: version 1, per model (registry name) its kept ratios and how many were seen. */
export interface CalibrationRecord {
  version: 1;
  models: Record<string, { ratios: number[]; samples: number; rejected: number }>;
}

export interface UsageObservation {
  /** The model as the request or response named it (resolved through the registry). */
  model: string;
  /** The request's raw count (factor 1). */
  counted: number;
  /** What the provider billed as input (all of it, cache reads and writes included). */
  billed: number;
}

/** The outcome of recording one bill. `factor` is the one the next window of the model is counted with. */
export interface CalibrationOutcome {
  model: string;
  accepted: boolean;
  /** billed / counted; absent when either is not a positive finite number. */
  ratio?: number;
  /** Why a report was not used. */
  reason?: string;
  previousFactor: number;
  factor: number;
  /** Accepted ratios kept for the model. */
  samples: number;
}

export class TokenCalibration {
  readonly #models = new Map<string, { ratios: number[]; samples: number; rejected: number }>();

  /** The calibration `record` describes (validated: a bad record is INVALID_ARGUMENT), or an empty one. */
  static fromJSON(record: unknown): TokenCalibration {
    const calibration = new TokenCalibration();
    const fail = (path: string, expected: string, given: unknown): never => {
      throw createError("INVALID_ARGUMENT", "Invalid calibration record", { module: "context/calibration", path, expected, given });
    };
    if (typeof record !== "object" || record === null || (record as { version?: unknown }).version !== 1) {
      return fail("version", "a calibration record { version: 1, models }", record);
    }
    const models = (record as { models?: unknown }).models;
    if (typeof models !== "object" || models === null || Array.isArray(models)) return fail("models", "an object: model → { ratios, samples, rejected }", models);
    for (const [model, entry] of Object.entries(models)) {
      const e = entry as { ratios?: unknown; samples?: unknown; rejected?: unknown } | null;
      const ratios = e?.ratios;
      if (!Array.isArray(ratios) || ratios.length > CALIBRATION_RULES.keep || ratios.some((r) => !isRatio(r))) {
        fail(`models.${model}.ratios`, `at most ${CALIBRATION_RULES.keep} ratios, each within [${CALIBRATION_RULES.minRatio}, ${CALIBRATION_RULES.maxRatio}]`, ratios);
      }
      const samples = e?.samples;
      const rejected = e?.rejected;
      if (!Number.isSafeInteger(samples) || (samples as number) < (ratios as number[]).length) fail(`models.${model}.samples`, "a whole number ≥ ratios.length", samples);
      if (!Number.isSafeInteger(rejected) || (rejected as number) < 0) fail(`models.${model}.rejected`, "a whole number ≥ 0", rejected);
      calibration.#models.set(modelKey(model), { ratios: [...(ratios as number[])], samples: samples as number, rejected: rejected as number });
    }
    return calibration;
  }

  /** The factor to count `model` with: the calibrated one once it applies, else `defaultFactor`. */
  factorFor(model: string, defaultFactor: number): number {
    const entry = this.#models.get(modelKey(model));
    if (!entry || entry.ratios.length < CALIBRATION_RULES.minSamples) return defaultFactor;
    return calibratedFactor(entry.ratios);
  }

  /** Records one bill; absurd reports are counted as rejected and leave the factor alone. */
  record(observation: UsageObservation, defaultFactor: number): CalibrationOutcome {
    const key = modelKey(observation.model);
    const previousFactor = this.factorFor(key, defaultFactor);
    const entry = this.#models.get(key) ?? { ratios: [], samples: 0, rejected: 0 };
    this.#models.set(key, entry);
    const { counted, billed } = observation;
    const reason = !isPositive(billed)
      ? "billed input tokens must be a positive number"
      : !isPositive(counted)
        ? "counted tokens must be a positive number"
        : undefined;
    const ratio = reason === undefined ? billed / counted : undefined;
    const outOfRange = ratio !== undefined && !isRatio(ratio) ? `ratio ${(ratio as number).toFixed(3)} is outside [${CALIBRATION_RULES.minRatio}, ${CALIBRATION_RULES.maxRatio}]: the bill is not for this request` : undefined;
    const why = reason ?? outOfRange;
    if (why !== undefined) {
      entry.rejected++;
      return { model: key, accepted: false, ...(ratio === undefined ? {} : { ratio }), reason: why, previousFactor, factor: previousFactor, samples: entry.ratios.length };
    }
    entry.ratios.push(ratio!);
    if (entry.ratios.length > CALIBRATION_RULES.keep) entry.ratios.shift();
    entry.samples++;
    return { model: key, accepted: true, ratio: ratio!, previousFactor, factor: this.factorFor(key, defaultFactor), samples: entry.ratios.length };
  }

  toJSON(): CalibrationRecord {
    const models: CalibrationRecord["models"] = {};
    for (const [model, e] of this.#models) models[model] = { ratios: [...e.ratios], samples: e.samples, rejected: e.rejected };
    return { version: 1, models };
  }
}

/** Observations are kept under the registry's name (`claude-sonnet-4-20250514` → `claude-sonnet-4`). */
export function modelKey(model: string): string {
  return getModelInfo(model)?.name ?? normalizeModelName(model);
}

/** The rule of the file comment: p95 × (1 + headroom), rounded up to 0.01, clamped to the bounds. */
function calibratedFactor(ratios: readonly number[]): number {
  const sorted = [...ratios].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(CALIBRATION_RULES.quantile * sorted.length));
  const high = sorted[rank - 1]! * (1 + CALIBRATION_RULES.headroom);
  const rounded = Math.ceil(high * 100 - 1e-9) / 100;
  return Math.min(CALIBRATION_RULES.maxFactor, Math.max(CALIBRATION_RULES.minFactor, rounded));
}

function isPositive(n: unknown): n is number {
  return typeof n === "number" && Number.isFinite(n) && n > 0;
}

function isRatio(r: unknown): r is number {
  return typeof r === "number" && Number.isFinite(r) && r >= CALIBRATION_RULES.minRatio && r <= CALIBRATION_RULES.maxRatio;
}
