/** The machine a benchmark ran on, for BENCHMARKS.md. */
import { readFileSync } from "node:fs";
import os from "node:os";

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramBytes: number;
  os: string;
  node: string;
  v8: string;
  heapLimitBytes: number;
}

export function machineInfo(heapLimitBytes: number): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpuModel() ?? cpus[0]?.model ?? "unknown",
    cores: typeof os.availableParallelism === "function" ? os.availableParallelism() : cpus.length,
    ramBytes: os.totalmem(),
    os: `${prettyOs() ?? os.type()} (${os.platform()} ${os.release()}, ${os.arch()})`,
    node: process.version,
    v8: process.versions.v8,
    heapLimitBytes,
  };
}

function cpuModel(): string | undefined {
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const model = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim();
    const mhz = /^cpu MHz\s*:\s*([\d.]+)$/m.exec(info)?.[1];
    if (!model) return undefined;
    return mhz ? `${model} @ ${(Number(mhz) / 1000).toFixed(2)} GHz` : model;
  } catch {
    return undefined;
  }
}

function prettyOs(): string | undefined {
  try {
    return /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
  } catch {
    return undefined;
  }
}
