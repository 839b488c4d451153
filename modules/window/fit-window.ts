/**
 * fitWindow(messages, options): one window, in the shape given — a fitter made for the call
 * (window-fitter.ts). In a loop, keep a `createWindowFitter(options)` instead: it reads only the
 * new messages each call and keeps the cut stable across calls (cache-friendly prefixes).
 */
import type { FitOptions } from "./fit-options.js";
import { createWindowFitter, type FitResult } from "./window-fitter.js";

export function fitWindow<T>(messages: T, options: FitOptions & { report: true }): FitResult<T>;
export function fitWindow<T>(messages: T, options: FitOptions & { report?: false | undefined }): T;
export function fitWindow<T>(messages: T, options: FitOptions & { report?: boolean | undefined }): T | FitResult<T>;
export function fitWindow<T>(messages: T, options: FitOptions & { report?: boolean | undefined }): T | FitResult<T> {
  const { report, ...rest } = options ?? ({} as FitOptions);
  return createWindowFitter(rest).fit(messages, { report: report === true });
}
