import { header, sample } from "../../lib/prometheus.ts";

const startedAt = Date.now() / 1000 - process.uptime();

/** Memory and CPU of this process (resident set, JS heap), in the usual `process_*` names. */
export function processMetrics(): string {
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  return (
    header("process_resident_memory_bytes", "gauge", "Resident memory size in bytes") +
    sample("process_resident_memory_bytes", {}, memory.rss) +
    header("process_heap_bytes", "gauge", "JavaScript heap size in bytes (allocated)") +
    sample("process_heap_bytes", {}, memory.heapTotal) +
    header("mehir_js_heap_used_bytes", "gauge", "JavaScript heap in use, bytes") +
    sample("mehir_js_heap_used_bytes", {}, memory.heapUsed) +
    header("process_cpu_seconds_total", "counter", "User and system CPU time spent, seconds") +
    sample("process_cpu_seconds_total", {}, (cpu.user + cpu.system) / 1e6) +
    header("process_start_time_seconds", "gauge", "Start time of the process, Unix time") +
    sample("process_start_time_seconds", {}, Math.round(startedAt))
  );
}
