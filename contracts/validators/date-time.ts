/**
 * RFC 3339 `date-time`, exactly as ajv-formats checks `"format": "date-time"` in its default
 * ("full") mode — the reference the JSON Schemas are validated with. zod's own `z.iso.datetime()`
 * differs (it does not check days per month or leap years, and it refuses lowercase `t`/`z` and a
 * space separator, which RFC 3339 section 5.6 allows), so using it would let the two drift.
 *
 * Accepted: `2024-02-29T23:59:60Z` (a leap second is allowed at 23:59 UTC), `2024-01-31 10:00:00+02:00`,
 * fractions of a second, `+hh:mm`, `+hhmm` and `+hh` offsets. Refused: a missing offset, month 13,
 * February 30, hour 24.
 */
export function isDateTime(text: string): boolean {
  const parts = text.split(DATE_TIME_SEPARATOR);
  return parts.length === 2 && isDate(parts[0]!) && isTime(parts[1]!);
}

const DATE_TIME_SEPARATOR = /t|\s/i;
const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month]!);
}

function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (!match) return false;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3]);
  const zone = match[4];
  const sign = match[5] === "-" ? -1 : 1;
  const zoneHours = Number(match[6] ?? 0);
  const zoneMinutes = Number(match[7] ?? 0);
  // The offset is required: a date-time without one names no instant.
  if (zone === undefined || zoneHours > 23 || zoneMinutes > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second (:60) is only possible in the last minute of a UTC day.
  const utcMinute = minute - zoneMinutes * sign;
  const utcHour = hour - zoneHours * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
