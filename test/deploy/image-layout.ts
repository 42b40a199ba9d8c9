import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dockerignorePatterns, isIgnored } from './dockerignore';
import { parseDockerfile, parseEnvAssignments, parseExecForm, type DockerInstruction, type DockerStage } from './dockerfile';

/**
 * The file system of an image stage, reproduced in a directory of this machine: the container's
 * `/x` is `<rootfs>/x`. Only what our Dockerfile uses is reproduced; anything else throws, naming
 * the line, so the Dockerfile cannot drift away from what this test checks.
 */
export interface ImageLayout {
  readonly rootfs: string;
  /** ENV of the stage, values as written (container paths). */
  readonly env: Readonly<Record<string, string>>;
  readonly workdir: string;
  /** USER as numbers (a name would keep Kubernetes from checking runAsNonRoot). */
  readonly user: { uid: number; gid: number } | undefined;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** The container path `containerPath` on this machine. */
  hostPath(containerPath: string): string;
}

export interface LayoutSources {
  /** The build context (the repository). */
  readonly context: string;
  /**
   * The stage that compiles the repository (its RUN has `npm run build`) is not run again: the
   * repository, already built by `npm run build` before the tests, stands for its WORKDIR. It must
   * copy the whole context (`COPY . .`), so the stand-in holds what that stage would.
   */
  readonly builtStageName: string;
  /** Where stages are reproduced: `<root>/<stage name>`. */
  readonly root: string;
}

/** PATH of the node:20 images when the Dockerfile sets none. */
const IMAGE_DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function buildImageLayout(dockerfile: string, targetStage: string, sources: LayoutSources): ImageLayout {
  const stages = parseDockerfile(dockerfile);
  const ignore = dockerignorePatterns(sources.context);
  const built = new Map<string, ImageLayout>();
  const layoutOf = (name: string): ImageLayout => {
    const existing = built.get(name);
    if (existing !== undefined) return existing;
    const stage = stages.find((s) => s.name === name);
    if (stage === undefined) throw new Error(`Dockerfile has no stage named ${name}`);
    const layout =
      name === sources.builtStageName
        ? repositoryAsStage(stage, sources.context)
        : selfContained(stage)
          ? cachedStage(stage, sources, ignore, (rootfs) => reproduceStage(stage, rootfs, sources, ignore, layoutOf))
          : reproduceStage(stage, path.join(sources.root, stage.name), sources, ignore, layoutOf);
    built.set(name, layout);
    return layout;
  };
  return layoutOf(targetStage);
}

function rebase(rootfs: string, containerPath: string): string {
  if (!path.posix.isAbsolute(containerPath)) throw new Error(`expected an absolute container path, got ${containerPath}`);
  return path.join(rootfs, containerPath);
}

function repositoryAsStage(stage: DockerStage, context: string): ImageLayout {
  const workdirs = stage.instructions.filter((i) => i.keyword === 'WORKDIR').map((i) => i.args);
  const copies = stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  const builds = stage.instructions.some((i) => i.keyword === 'RUN' && /(^|&&)\s*npm run build\s*($|&&)/.test(i.args));
  if (workdirs.length !== 1 || copies.length !== 1 || copies[0] !== '. .' || !builds) {
    throw new Error(`stage ${stage.name}: the built repository stands for it only if it has one WORKDIR, copies the whole context (COPY . .) and runs npm run build`);
  }
  const workdir = workdirs[0] as string;
  return {
    rootfs: '',
    env: {},
    workdir,
    user: undefined,
    entrypoint: [],
    cmd: [],
    hostPath: (containerPath) => {
      const relative = path.posix.relative(workdir, containerPath);
      if (relative.startsWith('..') || path.posix.isAbsolute(relative)) throw new Error(`stage ${stage.name}: ${containerPath} is outside ${workdir}, which the repository stands for`);
      return path.join(context, relative);
    },
  };
}

/** A stage built from the context alone (no COPY --from): its result depends only on those files. */
function selfContained(stage: DockerStage): boolean {
  return !stage.instructions.some((i) => i.keyword === 'COPY' && i.args.startsWith('--from='));
}

/**
 * Docker's layer cache, for a self-contained stage: its result is kept under the OS temp dir,
 * keyed by the base image, the stage's instructions and the content of every file it copies
 * from the context, and reused while none of them changes (the production dependencies' `npm ci`
 * is most of this test's time). Only the newest entry of a checkout is kept.
 */
function cachedStage(stage: DockerStage, sources: LayoutSources, ignore: string[], build: (rootfs: string) => ImageLayout): ImageLayout {
  const hash = createHash('sha256').update(`${stage.image}\n`);
  for (const instruction of stage.instructions) {
    hash.update(`${instruction.keyword} ${instruction.args}\n`);
    if (instruction.keyword !== 'COPY') continue;
    for (const source of instruction.args.split(/\s+/).slice(0, -1)) {
      for (const file of filesUnder(contextPath(sources.context, source, ignore, instruction), sources.context, ignore)) hash.update(`${file}\0`).update(readFileSync(file));
    }
  }
  // One cache per checkout: pruning it never touches another worktree's entry in use.
  const cacheRoot = path.join(tmpdir(), 'gateway-image-layers', createHash('sha256').update(sources.context).digest('hex').slice(0, 12));
  const entry = path.join(cacheRoot, `${stage.name}-${hash.digest('hex').slice(0, 24)}`);
  const complete = path.join(entry, '.layer-complete.json');
  if (existsSync(complete)) return { ...(JSON.parse(readFileSync(complete, 'utf8')) as Omit<ImageLayout, 'hostPath'>), hostPath: (p) => rebase(path.join(entry, 'rootfs'), p) };
  rmSync(cacheRoot, { recursive: true, force: true });
  mkdirSync(entry, { recursive: true, mode: 0o755 });
  for (let dir = cacheRoot; dir !== tmpdir(); dir = path.dirname(dir)) chmodSync(dir, 0o755);
  const layout = build(path.join(entry, 'rootfs'));
  const { hostPath: _hostPath, ...recorded } = layout;
  writeFileSync(complete, JSON.stringify(recorded));
  return layout;
}

function filesUnder(file: string, context: string, ignore: string[]): string[] {
  if (isIgnored(path.relative(context, file), ignore)) return [];
  if (!statSync(file).isDirectory()) return [file];
  return readdirSync(file).sort().flatMap((name) => filesUnder(path.join(file, name), context, ignore));
}

function reproduceStage(stage: DockerStage, rootfs: string, sources: LayoutSources, ignore: string[], layoutOf: (name: string) => ImageLayout): ImageLayout {
  mkdirSync(rootfs, { recursive: true, mode: 0o755 });
  // A container's root is world-readable; mkdtemp made our temp root 0700.
  chmodSync(sources.root, 0o755);
  const hostPath = (containerPath: string): string => rebase(rootfs, containerPath);
  const env: Record<string, string> = {};
  let workdir = '/';
  let user: ImageLayout['user'];
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  for (const instruction of stage.instructions) {
    switch (instruction.keyword) {
      case 'WORKDIR':
        workdir = path.posix.resolve(workdir, instruction.args);
        mkdirSync(hostPath(workdir), { recursive: true, mode: 0o755 });
        break;
      case 'ENV':
        for (const [key, value] of parseEnvAssignments(instruction.args, instruction.line)) env[key] = value;
        break;
      case 'COPY':
        copy(instruction, workdir, hostPath, sources.context, ignore, layoutOf);
        break;
      case 'RUN':
        run(instruction, hostPath(workdir), hostPath, sources.context);
        break;
      case 'USER':
        user = numericUser(instruction);
        break;
      case 'ENTRYPOINT':
        entrypoint = parseExecForm(instruction);
        break;
      case 'CMD':
        cmd = parseExecForm(instruction);
        break;
      case 'EXPOSE':
        break;
      default:
        throw new Error(`Dockerfile line ${instruction.line}: the layout test does not reproduce ${instruction.keyword}`);
    }
  }
  return { rootfs, env, workdir, user, entrypoint, cmd, hostPath };
}

function numericUser(instruction: DockerInstruction): { uid: number; gid: number } {
  const match = /^(\d+)(?::(\d+))?$/.exec(instruction.args);
  if (match === null) throw new Error(`Dockerfile line ${instruction.line}: USER must be numeric (uid[:gid]) so runAsNonRoot can be verified`);
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}

/** COPY [--from=stage] src... dest, with Docker's rules for directories and a trailing slash. */
function copy(instruction: DockerInstruction, workdir: string, hostPath: (p: string) => string, context: string, ignore: string[], layoutOf: (name: string) => ImageLayout): void {
  const words = instruction.args.split(/\s+/);
  let from: ImageLayout | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift() as string;
    const match = /^--from=(\S+)$/.exec(flag);
    if (match === null) throw new Error(`Dockerfile line ${instruction.line}: the layout test does not reproduce COPY ${flag}`);
    from = layoutOf(match[1] as string);
  }
  if (words.length < 2) throw new Error(`Dockerfile line ${instruction.line}: COPY needs a source and a destination`);
  const dest = words.pop() as string;
  const destination = path.posix.resolve(workdir, dest);
  const intoDirectory = dest.endsWith('/') || words.length > 1;
  for (const source of words) {
    const hostSource = from === undefined ? contextPath(context, source, ignore, instruction) : from.hostPath(path.posix.resolve(from.workdir, source));
    if (!existsSync(hostSource)) throw new Error(`Dockerfile line ${instruction.line}: COPY source ${source} does not exist (${hostSource})`);
    const isDirectory = statSync(hostSource).isDirectory();
    const target = intoDirectory && !isDirectory ? path.join(hostPath(destination), path.basename(hostSource)) : hostPath(destination);
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    if (from === undefined) {
      cpSync(hostSource, target, { recursive: true, filter: (file) => !isIgnored(path.relative(context, file), ignore) });
    } else {
      copyBetweenStages(hostSource, target, isDirectory, what(instruction));
    }
  }
}

/**
 * Hard links instead of copies (a stage's node_modules is large; the files are only read), with
 * symlinks kept as symlinks (npm's workspace links), as a Docker COPY keeps them.
 */
function copyBetweenStages(source: string, target: string, isDirectory: boolean, what: string): void {
  if (isDirectory) mkdirSync(target, { recursive: true, mode: 0o755 });
  const result = spawnSync('cp', ['-a', '--link', isDirectory ? `${source}/.` : source, target], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${what}: cp failed: ${result.stderr}`);
}

function what(instruction: DockerInstruction): string {
  return `Dockerfile line ${instruction.line}: ${instruction.keyword} ${instruction.args}`;
}

function contextPath(context: string, source: string, ignore: string[], instruction: DockerInstruction): string {
  const relative = path.posix.normalize(source);
  if (relative.startsWith('..')) throw new Error(`Dockerfile line ${instruction.line}: ${source} is outside the build context`);
  if (relative !== '.' && isIgnored(relative, ignore)) throw new Error(`Dockerfile line ${instruction.line}: ${source} is excluded by .dockerignore`);
  return path.join(context, relative);
}




/** RUN: `&&`-joined commands of the few kinds our Dockerfile uses. */
function run(instruction: DockerInstruction, cwd: string, hostPath: (p: string) => string, context: string): void {
  if (/[;|<>`$'"]|\|\|/.test(instruction.args)) throw new Error(`Dockerfile line ${instruction.line}: the layout test reproduces only plain commands joined by &&`);
  for (const command of instruction.args.split('&&').map((c) => c.trim().split(/\s+/))) {
    const [program, ...args] = command;
    const what = `Dockerfile line ${instruction.line}: ${command.join(' ')}`;
    if (program === 'npm' && args[0] === 'ci') {
      // The same command, from the npm cache when it can (CI machines may have no registry).
      const result = spawnSync('npm', [...args, '--prefer-offline'], { cwd, encoding: 'utf8', env: { ...npmFreeEnv(), NODE_ENV: 'production' } });
      if (result.status !== 0) throw new Error(`${what} failed (${result.status}):\n${result.stderr}`);
    } else if (program === 'npm' && args[0] === 'rebuild' && args.length === 2) {
      prebuiltNativeAddon(args[1] as string, cwd, context, what);
    } else if (program === 'mkdir' && args[0] === '-p') {
      for (const dir of args.slice(1)) mkdirSync(hostPath(dir), { recursive: true, mode: 0o755 });
    } else if (program === 'ln' && args[0] === '-s' && args.length === 3) {
      mkdirSync(path.dirname(hostPath(args[2] as string)), { recursive: true, mode: 0o755 });
      symlinkSync(hostPath(args[1] as string), hostPath(args[2] as string));
    } else if (program === 'chown' && args.length === 2 && /^\d+:\d+$/.test(args[0] as string)) {
      const [uid, gid] = (args[0] as string).split(':').map(Number) as [number, number];
      chownSync(hostPath(args[1] as string), uid, gid);
    } else {
      throw new Error(`${what}: the layout test does not reproduce this command`);
    }
  }
}

/** npm settings that say where npm finds packages; nothing else of a calling npm script's configuration. */
const NPM_LOCATION_SETTINGS = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);

/**
 * The environment without the variables npm sets for a script it runs (`npm test`): they would
 * carry the caller's configuration (a workspace, `omit`, `include`) into the stage's `npm ci`.
 */
function npmFreeEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || NPM_LOCATION_SETTINGS.has(key.toLowerCase())));
}

/**
 * `npm rebuild <package>` compiles a native addon (better-sqlite3: all of SQLite), minutes on a
 * 2-core CI machine. The repository's node_modules holds that addon built from the same version
 * for this Node's ABI, so its `build/Release/*.node` files are copied instead; the roles started from the
 * layout then load it. The versions must match.
 */
function prebuiltNativeAddon(name: string, cwd: string, context: string, what: string): void {
  const installed = path.join(cwd, 'node_modules', name);
  const repository = path.join(context, 'node_modules', name);
  if (!existsSync(path.join(installed, 'package.json'))) throw new Error(`${what}: ${name} is not installed in the stage`);
  const version = (dir: string): string => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  if (version(installed) !== version(repository)) throw new Error(`${what}: the stage installs ${name} ${version(installed)}, the repository has ${version(repository)}`);
  const release = path.join(repository, 'build', 'Release');
  const addons = existsSync(release) ? readdirSync(release).filter((file) => file.endsWith('.node')) : [];
  if (addons.length === 0) throw new Error(`${what}: the repository has no built ${name} addon in ${release}`);
  mkdirSync(path.join(installed, 'build', 'Release'), { recursive: true, mode: 0o755 });
  for (const addon of addons) cpSync(path.join(release, addon), path.join(installed, 'build', 'Release', addon));
}

/** Where the image finds a bare ENTRYPOINT program: its PATH (or the node images' default). */
export function resolveEntrypoint(layout: ImageLayout): string {
  const program = layout.entrypoint[0];
  if (program === undefined) throw new Error('the image has no ENTRYPOINT');
  if (program.includes('/')) return layout.hostPath(path.posix.resolve(layout.workdir, program));
  for (const dir of (layout.env['PATH'] ?? IMAGE_DEFAULT_PATH).split(':')) {
    const candidate = layout.hostPath(path.posix.join(dir, program));
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`ENTRYPOINT ${program} is not on the image's PATH`);
}
