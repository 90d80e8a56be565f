import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

export interface S3Config {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** The object store as the service uses it: the bucket's objects by key. Every S3 call goes through here, so that
 * "the object is missing" is recognised in one place. */
export interface ObjectStore {
  bucket: string;
  /** the SDK client, for the few calls not wrapped yet (presigned URLs in server/documents/document-service.ts) */
  client: S3Client;
  put(key: string, body: Buffer, contentType?: string): Promise<void>;
  /** the object's bytes, or undefined when it does not exist */
  get(key: string): Promise<Buffer | undefined>;
  getFrom(bucket: string, key: string): Promise<Buffer | undefined>;
  /** the object's size and type without its bytes (HeadObject), or undefined when it does not exist */
  head(key: string): Promise<{ size: number; contentType: string | undefined } | undefined>;
  /** copies an object inside the bucket; false when the source does not exist */
  copy(fromKey: string, toKey: string): Promise<boolean>;
  /** deletes an object (nothing happens when it does not exist) */
  delete(key: string): Promise<void>;
  /** the keys under a prefix, page by page (in `bucket`, default the store's) */
  list(prefix: string, bucket?: string): AsyncIterable<string>;
  /** deletes every object under a prefix; returns how many were deleted */
  deletePrefix(prefix: string): Promise<number>;
  /** a presigned PUT of `key` whose signature covers the content type */
  presignPut(key: string, contentType: string, expiresIn: number): Promise<string>;
  /** a presigned GET of `key`, answered with these headers */
  presignGet(
    key: string,
    answer: { contentType: string; disposition: string; cacheControl: string },
    expiresIn: number,
  ): Promise<string>;
  /** closes the client's connections */
  close(): void;
}

/** S3's and S3-compatible servers' names for an object that is not there. */
export function isMissing(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey';
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
  const Bucket = cfg.bucket;
  /** the call's result, or undefined when the object does not exist */
  const unlessMissing = async <T>(call: Promise<T>): Promise<T | undefined> => {
    try {
      return await call;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  };
  const getFrom = async (bucket: string, key: string) => {
    const res = await unlessMissing(client.send(new GetObjectCommand({ Bucket: bucket, Key: key })));
    return res?.Body ? Buffer.from(await res.Body.transformToByteArray()) : undefined;
  };
  async function* list(prefix: string, bucket = Bucket): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const o of page.Contents ?? []) if (o.Key) yield o.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  return {
    bucket: cfg.bucket,
    client,
    async put(key, body, contentType = 'application/octet-stream') {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType }));
    },
    get: (key) => getFrom(cfg.bucket, key),
    getFrom,
    async head(key) {
      const h = await unlessMissing(client.send(new HeadObjectCommand({ Bucket, Key: key })));
      return h ? { size: h.ContentLength ?? 0, contentType: h.ContentType } : undefined;
    },
    async copy(fromKey, toKey) {
      const copied = await unlessMissing(
        client.send(new CopyObjectCommand({ Bucket, Key: toKey, CopySource: `${Bucket}/${fromKey}` })),
      );
      return copied !== undefined;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    list,
    async deletePrefix(prefix) {
      // listed afresh after each page is deleted: what a page held is gone from the next listing
      let deleted = 0;
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, MaxKeys: 1000 }));
        const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => !!k);
        if (!keys.length) return deleted;
        await client.send(
          new DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        deleted += keys.length;
      }
    },
    presignPut: (key, contentType, expiresIn) =>
      getSignedUrl(client, new PutObjectCommand({ Bucket, Key: key, ContentType: contentType }), {
        expiresIn,
        signableHeaders: new Set(['content-type']),
      }),
    presignGet: (key, answer, expiresIn) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket,
          Key: key,
          ResponseContentType: answer.contentType,
          ResponseContentDisposition: answer.disposition,
          ResponseCacheControl: answer.cacheControl,
        }),
        { expiresIn },
      ),
    close: () => client.destroy(),
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
