import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';

export interface S3Config {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

export interface ObjectStore {
  bucket: string;
  client: S3Client;
  put(key: string, body: Buffer, contentType?: string): Promise<void>;
  /** the object's bytes, or undefined when it does not exist */
  get(key: string): Promise<Buffer | undefined>;
  getFrom(bucket: string, key: string): Promise<Buffer | undefined>;
}

/** One S3 client per process. Checksums only when required: S3-compatible servers (s3rver, older MinIO) reject the
 * SDK's default CRC headers. */
export function createObjectStore(cfg: S3Config): ObjectStore {
  // The SDK warns on every start that releases after January 2027 will need Node 22; the service targets Node 20
  // with the versions pinned in package-lock.json, so the warning is noise in the JSON logs. Set the variable to
  // "false" to see it again.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: cfg.region,
    ...(cfg.endpoint ? { endpoint: cfg.endpoint, forcePathStyle: true } : {}),
    ...(cfg.accessKeyId && cfg.secretAccessKey
      ? { credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey } }
      : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const getFrom = async (bucket: string, key: string) => {
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!res.Body) return undefined;
      return Buffer.from(await res.Body.transformToByteArray());
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') return undefined;
      throw err;
    }
  };
  return {
    bucket: cfg.bucket,
    client,
    async put(key, body, contentType = 'application/octet-stream') {
      await client.send(
        new PutObjectCommand({ Bucket: cfg.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    },
    get: (key) => getFrom(cfg.bucket, key),
    getFrom,
  };
}

export async function ensureBucket(store: ObjectStore): Promise<void> {
  try {
    await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }));
  } catch {
    try {
      await store.client.send(new CreateBucketCommand({ Bucket: store.bucket }));
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
    }
  }
}

/** Lets a browser PUT to presigned URLs (the hosted applicant page uploads its captures straight to the store),
 * from any origin: set on the embedded development S3 only, where a presigned URL is the whole credential and CORS
 * would add nothing to it. A production bucket needs the same rule for PUBLIC_BASE_URL's origin, set by its
 * operator (README, "Verify an applicant"). */
export async function allowBrowserUploads(store: ObjectStore): Promise<void> {
  await store.client.send(
    new PutBucketCorsCommand({
      Bucket: store.bucket,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: ['*'],
            AllowedMethods: ['PUT', 'GET'],
            AllowedHeaders: ['content-type'],
            MaxAgeSeconds: 600,
          },
        ],
      },
    }),
  );
}
