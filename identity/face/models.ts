// Model loading for identity/face: TensorFlow.js on the WebAssembly backend, with every model read from the
// npm packages on disk (nothing downloaded). Loaded once per thread (main thread or a worker_thread) and shared by
// every analyzer created in that thread; disposed when the last analyzer closes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TfCore from '@tensorflow/tfjs-core';
import type * as FaceApiNs from '@vladmandic/face-api';
import type { Human as HumanClass, Config as HumanConfig } from '@vladmandic/human';

const require = createRequire(import.meta.url);

export type FaceApi = typeof FaceApiNs;
export type Tf = typeof TfCore;

export interface LoadedModels {
  faceapi: FaceApi;
  tf: Tf;
  /** human (anti-spoof + liveness models only); null when liveness is disabled */
  human: HumanClass | null;
  load_ms: number;
}

/** Where the packages keep their files. @vladmandic/human's package.json "exports" has no "./" subpaths, so its
 *  files are found next to its main entry instead of by subpath. */
export function packagePaths(): {
  wasmDir: string;
  faceApiModels: string;
  humanDist: string;
  humanModels: string;
} {
  const wasmDir = `${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`;
  const faceApiModels = dirname(
    require.resolve('@vladmandic/face-api/model/ssd_mobilenetv1_model-weights_manifest.json'),
  );
  const humanDist = dirname(require.resolve('@vladmandic/human'));
  return { wasmDir, faceApiModels, humanDist, humanModels: join(humanDist, '..', 'models') };
}

const FILE_SCHEME = 'file://';

interface WeightsManifestGroup {
  paths: string[];
  weights: unknown[];
}

/** A tf.io load handler for a graph-model JSON on disk: Node's fetch refuses file:// URLs. */
function fileModelHandler(url: string) {
  const path = url.slice(FILE_SCHEME.length);
  return {
    load: async () => {
      const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & {
        weightsManifest: WeightsManifestGroup[];
      };
      const weightSpecs: unknown[] = [];
      const buffers: Buffer[] = [];
      for (const group of json.weightsManifest) {
        weightSpecs.push(...group.weights);
        for (const p of group.paths) buffers.push(readFileSync(join(dirname(path), p)));
      }
      const all = Buffer.concat(buffers);
      return {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
      };
    },
  };
}

let routerRegistered = false;
let state: LoadedModels | null = null;
let users = 0;
// acquire/release run one at a time, so a release never frees weights that a concurrent acquire is about to use
let lifecycle: Promise<unknown> = Promise.resolve();

function serially<T>(fn: () => Promise<T>): Promise<T> {
  const next = lifecycle.then(fn, fn);
  lifecycle = next.catch(() => undefined);
  return next;
}

async function load(withLiveness: boolean): Promise<LoadedModels> {
  const started = performance.now();
  const paths = packagePaths();
  // face-api's node-wasm bundle requires @tensorflow/tfjs and @tensorflow/tfjs-backend-wasm: one tfjs-core
  // instance (the package's own dependency), shared with human below
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
  const tf = require('@tensorflow/tfjs-core') as Tf;
  const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(p: string): void };
  wasm.setWasmPaths(paths.wasmDir);
  if (!routerRegistered) {
    tf.io.registerLoadRouter((url: string | string[]) =>
      typeof url === 'string' && url.startsWith(FILE_SCHEME)
        ? (fileModelHandler(url) as unknown as TfCore.io.IOHandler)
        : (null as unknown as TfCore.io.IOHandler),
    );
    routerRegistered = true;
  }
  if (tf.getBackend() !== 'wasm') {
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs wasm backend failed to initialise');
  }
  await tf.ready();
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(paths.faceApiModels);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(paths.faceApiModels);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(paths.faceApiModels);

  const human = withLiveness ? await loadHuman() : null;
  return { faceapi, tf, human, load_ms: Math.round(performance.now() - started) };
}

/** human runs only its face detector + mesh (to crop the face the way its anti-spoof models expect) and the
 *  anti-spoof and liveness models; face-api does detection and recognition. No frame caching: every image is
 *  a still of its own. */
function humanConfig(paths: ReturnType<typeof packagePaths>): Partial<HumanConfig> {
  return {
    backend: 'wasm',
    wasmPath: paths.wasmDir,
    modelBasePath: `${FILE_SCHEME}${paths.humanModels}/`,
    debug: false,
    cacheModels: false,
    cacheSensitivity: 0,
    skipAllowed: false,
    warmup: 'none',
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 20, minConfidence: 0.3, return: false },
      mesh: { enabled: true },
      attention: { enabled: false },
      iris: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      gear: { enabled: false },
      antispoof: { enabled: true },
      liveness: { enabled: true },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  } as Partial<HumanConfig>;
}

function loadHuman(): Promise<HumanClass> {
  const paths = packagePaths();
  const { Human } = require(join(paths.humanDist, 'human.node-wasm.js')) as {
    Human: new (config?: Partial<HumanConfig>) => HumanClass;
  };
  const human = new Human(humanConfig(paths));
  return human.load().then(() => human);
}

export function wasmHeapBytes(): number {
  const backend = state?.tf.backend() as { wasm?: { HEAPU8?: Uint8Array } } | undefined;
  return backend?.wasm?.HEAPU8?.byteLength ?? 0;
}

/** The thread's models, loaded on first use; every acquire is paired with one release. */
export function acquireModels(withLiveness: boolean): Promise<LoadedModels> {
  return serially(async () => {
    if (!state) state = await load(withLiveness);
    else if (withLiveness && !state.human) state.human = await loadHuman(); // an earlier analyzer skipped it
    users++;
    return state;
  });
}

/** Drop one user; the last one frees the models' weights (tensors in the wasm heap). */
export function releaseModels(): Promise<void> {
  return serially(async () => {
    users = Math.max(0, users - 1);
    if (users > 0 || !state) return;
    const m = state;
    state = null;
    m.faceapi.nets.ssdMobilenetv1.dispose();
    m.faceapi.nets.faceLandmark68Net.dispose();
    m.faceapi.nets.faceRecognitionNet.dispose();
    for (const model of Object.values(m.human?.models.models ?? {})) {
      (model as { dispose?: () => void } | null)?.dispose?.();
    }
    // human keeps each loaded model in module state and reuses it in every later instance; reset() marks its
    // environment initial again, so that the next instance loads them anew instead of running disposed weights
    m.human?.reset();
  });
}
