/**
 * The common desktop values an identity is drawn from, grouped by platform so that every drawn value goes with
 * the others: a Mac gets an Apple or Intel Mac GPU and a menu-bar inset, a Windows machine a Direct3D ANGLE
 * renderer and a taskbar inset, and the client hints name the same platform as navigator.platform and the
 * User-Agent. Each platform's choices form a mixed-radix space, so an identity is one index into the whole
 * table (identityAt) and the draw can walk it to find one nobody on the host has.
 */

export interface ScreenValues {
  width: number;
  height: number;
  availWidth: number;
  availHeight: number;
  colorDepth: number;
  /** Only when an admin sets it: the drawn identity keeps the browser's own pixel ratio (layout follows it). */
  devicePixelRatio?: number;
}

/** Client hints of the identity (the part of CDP's UserAgentMetadata that does not depend on the browser build). */
export interface PlatformHints {
  platform: string;
  platformVersion: string;
  architecture: string;
  bitness: string;
  model: string;
  mobile: boolean;
  wow64: boolean;
}

/** One user's drawn identity: what their browser reports wherever the identity applies. */
export interface Identity {
  hardwareConcurrency: number;
  deviceMemory: number;
  screen: ScreenValues;
  webgl: { vendor: string; renderer: string };
  /** navigator.platform */
  platform: string;
  userAgentMetadata: PlatformHints;
}

interface PlatformTable {
  navigatorPlatform: string;
  /** Share of desktop users on this platform, for the first pick of a draw. */
  weight: number;
  /** Pixels the OS keeps from the screen (taskbar, menu bar, panel): avail = size minus these. */
  inset: { width: number; height: number };
  hints: Omit<PlatformHints, 'platformVersion' | 'architecture'>;
  /** platformVersion with the architecture it goes with. */
  versions: { platformVersion: string; architecture: string }[];
  cores: number[];
  memory: number[];
  screens: [number, number][];
  /** GPU strings as Chromium's ANGLE reports them on this platform, each with the architecture it needs. */
  gpus: { vendor: string; renderer: string; architecture: string }[];
}

const WINDOWS_GPUS = [
  ['NVIDIA', 'NVIDIA GeForce GTX 1650'],
  ['NVIDIA', 'NVIDIA GeForce RTX 3060'],
  ['NVIDIA', 'NVIDIA GeForce RTX 2060'],
  ['Intel', 'Intel(R) UHD Graphics 620'],
  ['Intel', 'Intel(R) Iris(R) Xe Graphics'],
  ['Intel', 'Intel(R) UHD Graphics 630'],
  ['AMD', 'AMD Radeon(TM) Graphics'],
  ['AMD', 'AMD Radeon RX 580 Series'],
].map(([v, r]) => ({ vendor: `Google Inc. (${v})`, renderer: `ANGLE (${v}, ${r} Direct3D11 vs_5_0 ps_5_0, D3D11)`, architecture: 'x86' }));

const MAC_GPUS = [
  ...['Apple M1', 'Apple M2', 'Apple M3', 'Apple M1 Pro'].map((chip) => ({ vendor: 'Google Inc. (Apple)', renderer: `ANGLE (Apple, ANGLE Metal Renderer: ${chip}, Unspecified Version)`, architecture: 'arm' })),
  ...['Intel(R) Iris(TM) Plus Graphics', 'Intel(R) UHD Graphics 630'].map((gpu) => ({ vendor: 'Google Inc. (Intel Inc.)', renderer: `ANGLE (Intel Inc., ${gpu} OpenGL Engine, OpenGL 4.1)`, architecture: 'x86' })),
];

const LINUX_GPUS = [
  ['Intel', 'Mesa Intel(R) UHD Graphics 620 (KBL GT2)'],
  ['Intel', 'Mesa Intel(R) Xe Graphics (TGL GT2)'],
  ['AMD', 'AMD Radeon Graphics (radeonsi, renoir, LLVM 15.0.7, DRM 3.49, 6.1.0-18-amd64)'],
  ['NVIDIA Corporation', 'NVIDIA GeForce GTX 1660/PCIe/SSE2'],
].map(([v, r]) => ({ vendor: `Google Inc. (${v})`, renderer: `ANGLE (${v}, ${r}, OpenGL 4.6)`, architecture: 'x86' }));

export const PLATFORMS: PlatformTable[] = [
  {
    navigatorPlatform: 'Win32',
    weight: 70,
    inset: { width: 0, height: 40 },
    hints: { platform: 'Windows', bitness: '64', model: '', mobile: false, wow64: false },
    // 10.0.0 is Windows 10; 15.0.0 and up are Windows 11 builds as client hints report them.
    versions: ['10.0.0', '15.0.0', '19.0.0'].map((platformVersion) => ({ platformVersion, architecture: 'x86' })),
    cores: [4, 6, 8, 12, 16],
    memory: [4, 8],
    screens: [[1920, 1080], [1366, 768], [1536, 864], [2560, 1440], [1440, 900], [1600, 900], [1280, 720]],
    gpus: WINDOWS_GPUS,
  },
  {
    navigatorPlatform: 'MacIntel',
    weight: 20,
    inset: { width: 0, height: 25 },
    hints: { platform: 'macOS', bitness: '64', model: '', mobile: false, wow64: false },
    versions: [
      ...['14.6.1', '15.3.1', '15.5.0'].map((platformVersion) => ({ platformVersion, architecture: 'arm' })),
      ...['13.6.9', '14.6.1'].map((platformVersion) => ({ platformVersion, architecture: 'x86' })),
    ],
    cores: [8, 10, 12],
    memory: [8],
    screens: [[1440, 900], [1512, 982], [1728, 1117], [1920, 1080], [2560, 1440], [1680, 1050]],
    gpus: MAC_GPUS,
  },
  {
    navigatorPlatform: 'Linux x86_64',
    weight: 10,
    inset: { width: 0, height: 32 },
    hints: { platform: 'Linux', bitness: '64', model: '', mobile: false, wow64: false },
    // Chrome on Linux reports an empty platformVersion.
    versions: [{ platformVersion: '', architecture: 'x86' }],
    cores: [4, 8, 12, 16],
    memory: [8],
    screens: [[1920, 1080], [1366, 768], [2560, 1440], [1600, 900]],
    gpus: LINUX_GPUS,
  },
];

/**
 * The choices of one platform, in the order an index is read: a GPU is counted with the versions of its own
 * architecture only, so an Apple Silicon renderer never comes with an Intel Mac's hints.
 */
type Combo = { gpu: PlatformTable['gpus'][number]; version: PlatformTable['versions'][number] };
const comboCache = new Map<PlatformTable, Combo[]>();
function combos(p: PlatformTable): Combo[] {
  let list = comboCache.get(p);
  if (!list) {
    list = p.gpus.flatMap((gpu) => p.versions.filter((v) => v.architecture === gpu.architecture).map((version) => ({ gpu, version })));
    comboCache.set(p, list);
  }
  return list;
}

/** How many identities one platform offers. */
export function platformSize(p: PlatformTable): number {
  return combos(p).length * p.cores.length * p.memory.length * p.screens.length;
}

/** How many distinct identities the table offers over all platforms. */
export const TABLE_SIZE = PLATFORMS.reduce((n, p) => n + platformSize(p), 0);

/** The first index of each platform's block, in table order. */
export function platformStart(which: number): number {
  return PLATFORMS.slice(0, which).reduce((n, p) => n + platformSize(p), 0);
}

/** The identity at an index of the table (0 <= index < TABLE_SIZE): every index is a different identity. */
export function identityAt(index: number): Identity {
  let i = index;
  for (const p of PLATFORMS) {
    const size = platformSize(p);
    if (i >= size) {
      i -= size;
      continue;
    }
    const pick = <T>(list: T[]): T => {
      const v = list[i % list.length]!;
      i = Math.floor(i / list.length);
      return v;
    };
    const cores = pick(p.cores);
    const memory = pick(p.memory);
    const [width, height] = pick(p.screens);
    const { gpu, version } = pick(combos(p));
    return {
      hardwareConcurrency: cores,
      deviceMemory: memory,
      screen: { width, height, availWidth: width - p.inset.width, availHeight: height - p.inset.height, colorDepth: 24 },
      webgl: { vendor: gpu.vendor, renderer: gpu.renderer },
      platform: p.navigatorPlatform,
      userAgentMetadata: { ...p.hints, ...version },
    };
  }
  throw new RangeError(`identity index ${index} is outside the table (${TABLE_SIZE})`);
}

/** The OS inset of a platform by its client-hints name (an admin's screen override keeps the OS's taskbar). */
export function insetFor(hintsPlatform: string): { width: number; height: number } {
  return PLATFORMS.find((p) => p.hints.platform === hintsPlatform)?.inset ?? { width: 0, height: 0 };
}
