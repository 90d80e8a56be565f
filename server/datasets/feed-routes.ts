import { FORMATS } from '../../ingest/index.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import {
  DatasetFeedCreateIn,
  DatasetFeedListOut,
  DatasetFeedOut,
  DatasetFeedPatchIn,
  FeedParams,
} from '../../schemas/feeds.js';
import type { Sql } from '../db/sql.js';
import { ApiError, ValidationError } from '../errors.js';
import { route } from '../http/router.js';
import { DIRECTORY_FORMATS, type FeedRow, feedOut } from './feeds.js';

const E404 = { description: 'Unknown feed', schema: ErrorEnvelope };

/** Format and URI together: a known format, and an https download only for single-file formats. */
function checkSource(format: string, uri: string, where: 'format' | 'uri'): void {
  if (!FORMATS.includes(format)) {
    throw new ValidationError([
      { loc: ['body', 'format'], msg: `unknown format; one of: ${FORMATS.join(', ')}`, type: 'enum' },
    ]);
  }
  if (/^https?:\/\//.test(uri) && DIRECTORY_FORMATS.includes(format)) {
    throw new ValidationError([
      {
        loc: ['body', where],
        msg: `${format} is a folder of files: an https feed needs a single-file format (or use an s3:// prefix)`,
        type: 'directory_format_over_https',
      },
    ]);
  }
}

async function getFeed(sql: Sql, id: string): Promise<FeedRow> {
  const [f] = await sql<FeedRow[]>`select * from dataset_feeds where id = ${id}`;
  if (!f) throw new ApiError('not_found', { message: 'Dataset feed not found' });
  return f;
}

/** List feeds (deployment-wide, like dataset versions): X-Admin-Token only. */
export function feedRoutes(sql: Sql) {
  return [
    route({
      method: 'POST',
      path: '/admin/dataset_feeds',
      operationId: 'createDatasetFeed',
      summary:
        'Register a list feed: fetched on a schedule, built when it changed, validated, promoted per policy',
      tag: 'admin',
      auth: 'admin',
      body: DatasetFeedCreateIn,
      responses: { 201: { description: 'Feed', schema: DatasetFeedOut } },
      handler: async ({ body }) => {
        checkSource(body.format, body.uri, 'uri');
        const [f] = await sql<FeedRow[]>`
          insert into dataset_feeds (name, format, uri, interval_minutes, promote, max_shrink_fraction, enabled)
          values (${body.name ?? `${body.format} feed`}, ${body.format}, ${body.uri}, ${body.interval_minutes ?? 720},
            ${body.promote ?? 'manual'}, ${body.max_shrink_fraction ?? 0.2}, ${body.enabled ?? true})
          returning *`;
        if (!f) throw new Error('feed insert returned nothing');
        return { status: 201, body: feedOut(f) };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/dataset_feeds',
      operationId: 'listDatasetFeeds',
      summary: 'List feeds with the outcome of their last run',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'Feeds', schema: DatasetFeedListOut } },
      handler: async () => {
        const rows = await sql<FeedRow[]>`select * from dataset_feeds order by seq`;
        return { status: 200, body: { items: rows.map(feedOut) } };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/dataset_feeds/{feed_id}',
      operationId: 'getDatasetFeed',
      summary: 'One list feed',
      tag: 'admin',
      auth: 'admin',
      params: FeedParams,
      responses: { 200: { description: 'Feed', schema: DatasetFeedOut }, 404: E404 },
      handler: async ({ params }) => ({ status: 200, body: feedOut(await getFeed(sql, params.feed_id)) }),
    }),
    route({
      method: 'PATCH',
      path: '/admin/dataset_feeds/{feed_id}',
      operationId: 'updateDatasetFeed',
      summary:
        'Change a feed (absent fields stay); a new URI forgets the validators so the next run fetches anew',
      tag: 'admin',
      auth: 'admin',
      params: FeedParams,
      body: DatasetFeedPatchIn,
      responses: { 200: { description: 'Feed', schema: DatasetFeedOut }, 404: E404 },
      handler: async ({ params, body }) => {
        const f = await getFeed(sql, params.feed_id);
        const uri = body.uri ?? f.uri;
        checkSource(f.format, uri, 'uri');
        const newUri = uri !== f.uri;
        const [row] = await sql<FeedRow[]>`
          update dataset_feeds set
            name = ${body.name ?? f.name}, uri = ${uri},
            interval_minutes = ${body.interval_minutes ?? f.interval_minutes},
            promote = ${body.promote ?? f.promote},
            max_shrink_fraction = ${body.max_shrink_fraction ?? f.max_shrink_fraction},
            enabled = ${body.enabled ?? f.enabled},
            etag = ${newUri ? null : f.etag}, last_modified = ${newUri ? null : f.last_modified},
            content_sha256 = ${newUri ? null : f.content_sha256},
            updated_at = now()
          where id = ${f.id} returning *`;
        if (!row) throw new ApiError('not_found', { message: 'Dataset feed not found' });
        return { status: 200, body: feedOut(row) };
      },
    }),
    route({
      method: 'POST',
      path: '/admin/dataset_feeds/{feed_id}/run',
      operationId: 'runDatasetFeed',
      summary: 'Make a feed due now (the scheduler claims it within FEED_SCHEDULER_MS)',
      tag: 'admin',
      auth: 'admin',
      params: FeedParams,
      responses: { 202: { description: 'Due now', schema: DatasetFeedOut }, 404: E404 },
      handler: async ({ params }) => {
        const [row] = await sql<FeedRow[]>`
          update dataset_feeds set next_due_at = now(), updated_at = now() where id = ${params.feed_id} returning *`;
        if (!row) throw new ApiError('not_found', { message: 'Dataset feed not found' });
        return { status: 202, body: feedOut(row) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/admin/dataset_feeds/{feed_id}',
      operationId: 'deleteDatasetFeed',
      summary: 'Delete a feed (the versions it built stay)',
      tag: 'admin',
      auth: 'admin',
      params: FeedParams,
      responses: { 204: { description: 'Deleted' }, 404: E404 },
      handler: async ({ params }) => {
        const rows = await sql`delete from dataset_feeds where id = ${params.feed_id} returning id`;
        if (!rows.length) throw new ApiError('not_found', { message: 'Dataset feed not found' });
        return { status: 204 };
      },
    }),
  ];
}
