/**
 * The README's "Scale out" recipe puts deploy/nginx-cluster.conf in nginx's conf.d: it must stay a valid
 * http{} context file. Checked with the real `nginx -t` (Debian's package; skipped, saying why, when absent).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "bun:test";

const nginx = Bun.which("nginx") ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : null);
const skipReason = nginx ? null : "nginx is not installed (Debian: apt-get install nginx)";
if (skipReason) console.warn(`skipping the nginx configuration test: ${skipReason}`);

(skipReason ? test.skip : test)("deploy/nginx-cluster.conf passes `nginx -t` inside a minimal nginx.conf", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-nginx-"));
  try {
    const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
    writeFileSync(
      join(dir, "nginx.conf"),
      [
        `pid ${join(dir, "nginx.pid")};`,
        `error_log ${join(dir, "error.log")};`,
        "events {}",
        "http {",
        `  access_log off;`,
        `  ${["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join(" ")}`,
        `  include ${resolve(import.meta.dir, "../../deploy/nginx-cluster.conf")};`,
        "}",
      ].join("\n"),
    );
    const run = Bun.spawnSync([nginx!, "-t", "-p", dir, "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")], { stderr: "pipe", stdout: "pipe" });
    const output = run.stderr.toString() + run.stdout.toString();
    expect(output).toContain("syntax is ok");
    expect(run.exitCode).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
