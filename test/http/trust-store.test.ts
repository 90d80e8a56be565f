// The ePassport trust store through the admin API: a master list (signature verified on the trust pool), single
// CSCAs (DER and PEM), CRLs (only from a CSCA of the store), listing by country with validity, removal, versions
// and listing an earlier version; bad files are clear 422s.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCrl, makeCsca, makeMasterList, makeSigner, type Party } from '../helpers/chip-fixtures.js';
import { call, startTestApp, type TestApp } from '../helpers/test-app.js';

interface Entry {
  id: string;
  kind: string;
  country: string;
  subject: string;
  valid_now: boolean;
  added_in_version: number;
  removed_in_version: number | null;
  source: string;
}
interface Change {
  version: number;
  added: Entry[];
  already_present: number;
  removed: Entry[];
  skipped: string[];
  master_list?: { signer: string; signer_issuer: string };
}

let t: TestApp;
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const admin = <T>(method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, { admin: t.adminToken, ...(body ? { body } : {}) });

let ut: Party;
let fr: Party;
let old: Party;
let mlCsca: Party;
let signer: Party;

beforeAll(async () => {
  t = await startTestApp({ sources: null });
  ut = makeCsca({ country: 'UT', cn: 'CSCA Utopia', kind: 'p256', slot: 'ts-ut' });
  fr = makeCsca({ country: 'FR', cn: 'CSCA France (test)', kind: 'rsa', slot: 'ts-fr' });
  old = makeCsca({
    country: 'FR',
    cn: 'CSCA France 2005 (test)',
    kind: 'rsa',
    slot: 'ts-fr',
    notBefore: new Date('2005-01-01'),
    notAfter: new Date('2015-01-01'),
  });
  mlCsca = makeCsca({ country: 'DE', cn: 'CSCA Germany (test)', kind: 'brainpoolP256r1', slot: 'ts-de' });
  signer = makeSigner(
    { country: 'DE', cn: 'Master List Signer', kind: 'brainpoolP256r1', slot: 'ts-mls', usage: [0] },
    mlCsca,
  );
});

afterAll(async () => {
  await t?.close();
});

describe('the trust store admin API', () => {
  it('needs the admin token', async () => {
    const r = await call(t.url, 'GET', '/admin/trust_store');
    expect(r.status).toBe(401);
  });

  it('loads a master list: its CSCAs become entries of a new version; loading it again changes nothing', async () => {
    const ml = makeMasterList(signer, [ut.der, fr.der, old.der, mlCsca.der]);
    const r = await admin<Change>('POST', '/admin/trust_store/master_lists', { data: b64(ml) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.version).toBe(1);
    expect(r.body.added.map((e) => e.country).sort()).toEqual(['DE', 'FR', 'FR', 'UT']);
    expect(r.body.master_list).toMatchObject({
      signer: expect.stringContaining('Master List Signer'),
      signer_issuer: 'master_list',
    });
    const again = await admin<Change>('POST', '/admin/trust_store/master_lists', { data: b64(ml) });
    expect(again.body).toMatchObject({ version: 1, added: [], already_present: 4 });
    const fr2 = await admin<{ version: number; items: Entry[] }>('GET', '/admin/trust_store?country=fr');
    expect(fr2.body.items.map((e) => [e.subject.replace(/.*CN=/, ''), e.valid_now, e.source])).toEqual([
      ['CSCA France 2005 (test)', false, 'master_list'],
      ['CSCA France (test)', true, 'master_list'],
    ]);
  });

  it('refuses a master list that does not verify, garbage and text that is not base64', async () => {
    const ml = Buffer.from(makeMasterList(signer, [ut.der, mlCsca.der]));
    const at = ml.indexOf(Buffer.from('CSCA Utopia'));
    ml[at] = (ml[at] ?? 0) ^ 1;
    const bad = await admin<{ error: { code: string; message: string; details: { reason: string } } }>(
      'POST',
      '/admin/trust_store/master_lists',
      { data: b64(ml) },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({
      code: 'trust_store_file_invalid',
      details: { reason: 'master_list_invalid' },
    });
    const garbage = await admin<{ error: { code: string } }>('POST', '/admin/trust_store/master_lists', {
      data: b64(randomBytes(300)),
    });
    expect(garbage.status).toBe(422);
    const notB64 = await admin('POST', '/admin/trust_store/cscas', { data: '***' });
    expect(notB64.status).toBe(422);
  });

  it('adds a CSCA as PEM, refuses a Document Signer as a CSCA, and CRLs only from a CSCA of the store', async () => {
    const nl = makeCsca({ country: 'NL', cn: 'CSCA NL (test)', kind: 'rsa-pss', slot: 'ts-nl' });
    const pem = `-----BEGIN CERTIFICATE-----\n${b64(nl.der).replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
    const r = await admin<Change>('POST', '/admin/trust_store/cscas', { data: b64(Buffer.from(pem)) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ version: 2, added: [{ kind: 'csca', country: 'NL', source: 'upload' }] });
    const ds = makeSigner({ country: 'NL', cn: 'DS NL (test)', kind: 'rsa', slot: 'ts-ds' }, nl);
    const notCa = await admin<{ error: { details: { reason: string } } }>(
      'POST',
      '/admin/trust_store/cscas',
      {
        data: b64(ds.der),
      },
    );
    expect(notCa.status).toBe(422);
    expect(notCa.body.error.details.reason).toBe('csca_invalid');
    const crl = await admin<Change>('POST', '/admin/trust_store/crls', { data: b64(makeCrl(nl, [17])) });
    expect(crl.status, JSON.stringify(crl.body)).toBe(201);
    expect(crl.body).toMatchObject({ version: 3, added: [{ kind: 'crl', country: 'NL', valid_now: true }] });
    const stranger = makeCsca({ country: 'NL', cn: 'CSCA NL (test)', kind: 'rsa', slot: 'ts-stranger' });
    const foreign = await admin<{ error: { details: { reason: string } } }>(
      'POST',
      '/admin/trust_store/crls',
      {
        data: b64(makeCrl(stranger, [17])),
      },
    );
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details.reason).toBe('crl_invalid');
  });

  it('removes an entry as a new version; the earlier version still lists it', async () => {
    const before = await admin<{ version: number; items: Entry[] }>('GET', '/admin/trust_store?country=UT');
    const entry = before.body.items[0] as Entry;
    const r = await admin<Change>('DELETE', `/admin/trust_store/entries/${entry.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: before.body.version + 1, removed: [{ id: entry.id }] });
    const now = await admin<{ items: Entry[] }>('GET', '/admin/trust_store?country=UT');
    expect(now.body.items).toEqual([]);
    const then = await admin<{ version: number; items: Entry[] }>(
      'GET',
      `/admin/trust_store?country=UT&version=${before.body.version}`,
    );
    expect(then.body.items.map((e) => e.id)).toEqual([entry.id]);
    expect((await admin('DELETE', `/admin/trust_store/entries/${entry.id}`)).status).toBe(404);
    const versions = await admin<{ items: { version: number; change: string }[] }>(
      'GET',
      '/admin/trust_store/versions',
    );
    expect(versions.body.items.map((v) => v.change)).toEqual([
      'entry_removed',
      'crl_added',
      'csca_added',
      'master_list_loaded',
    ]);
  });
});
