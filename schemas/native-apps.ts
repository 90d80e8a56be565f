import { type Static, Type } from '@sinclair/typebox';
import { Cursor, Limit, ListOf, Nullable, StringEnum, Timestamp, Uuid } from './common.js';

export const NativeAppPlatform = StringEnum(['ios', 'android'] as const, { title: 'NativeAppPlatform' });
export const NATIVE_APP_ENVIRONMENTS = ['development', 'staging', 'production'] as const;
export const NativeAppEnvironment = StringEnum(NATIVE_APP_ENVIRONMENTS, { title: 'NativeAppEnvironment' });

/** Formats (checked per platform in server/native-apps/native-app-rules.ts):
 * iOS bundle id: reverse-DNS of letters, digits and hyphens, ≤ 155 chars; team id: 10 upper-case letters/digits.
 * Android package: ≥ 2 dot-separated segments, each a letter then letters/digits/underscores;
 * signing fingerprint: SHA-256 as 32 colon-separated hex bytes (AA:BB:…). */
const Identifier = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'iOS bundle ID or Android package name',
});
const TenantPath = Type.String({
  pattern: '^/[A-Za-z0-9._~/-]{0,200}$',
  description: 'path under which the app opens verification links (universal links / app links), e.g. /acme',
});
const LinkHost = Type.String({
  pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$',
  description:
    "a host of the tenant's own (lower case, no port) that reaches this service: its verification links are built " +
    'on it and its association files list only its apps (Android before 15 cannot limit an app to a path)',
});
const TeamId = Type.String({ description: 'Apple team ID: 10 upper-case letters or digits' });
const Fingerprint = Type.String({
  description: 'SHA-256 signing certificate fingerprint, AA:BB:… (32 bytes)',
});
const Environments = Type.Array(NativeAppEnvironment, { minItems: 1, uniqueItems: true });

export const NativeAppCreateIn = Type.Object(
  {
    platform: NativeAppPlatform,
    identifier: Identifier,
    tenant_path: TenantPath,
    ios_team_id: Type.Optional(Nullable(TeamId)),
    android_signing_fingerprints: Type.Optional(Type.Array(Fingerprint, { maxItems: 20, uniqueItems: true })),
    enabled: Type.Optional(Type.Boolean()),
    environments: Type.Optional(Environments),
    link_host: Type.Optional(Nullable(LinkHost)),
  },
  { additionalProperties: false, title: 'NativeAppCreateIn' },
);
export type NativeAppCreateIn = Static<typeof NativeAppCreateIn>;

export const NativeAppPatchIn = Type.Object(
  {
    identifier: Type.Optional(Identifier),
    tenant_path: Type.Optional(TenantPath),
    ios_team_id: Type.Optional(Nullable(TeamId)),
    android_signing_fingerprints: Type.Optional(
      Nullable(Type.Array(Fingerprint, { maxItems: 20, uniqueItems: true })),
    ),
    enabled: Type.Optional(Nullable(Type.Boolean())),
    environments: Type.Optional(Nullable(Environments)),
    link_host: Type.Optional(Nullable(LinkHost)),
  },
  { additionalProperties: false, minProperties: 1, title: 'NativeAppPatchIn' },
);
export type NativeAppPatchIn = Static<typeof NativeAppPatchIn>;

export const NativeAppOut = Type.Object(
  {
    id: Uuid,
    platform: NativeAppPlatform,
    identifier: Type.String(),
    tenant_path: Type.String(),
    ios_team_id: Nullable(Type.String()),
    android_signing_fingerprints: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    environments: Type.Array(NativeAppEnvironment),
    link_host: Type.Optional(Nullable(Type.String())),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'NativeApp' },
);
export type NativeAppOut = Static<typeof NativeAppOut>;

export const NativeAppListQuery = Type.Object(
  {
    platform: Type.Optional(NativeAppPlatform),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const NativeAppListOut = ListOf(NativeAppOut, 'NativeAppListOut');
export const NativeAppParams = Type.Object({ native_app_id: Uuid }, { additionalProperties: false });

/** GET /.well-known/apple-app-site-association (Apple's applinks format, iOS 13+). */
export const AppleAppSiteAssociation = Type.Object(
  {
    applinks: Type.Object({
      details: Type.Array(
        Type.Object({
          appIDs: Type.Array(Type.String({ description: 'TEAMID.bundle.id' })),
          components: Type.Array(
            Type.Object({ '/': Type.String({ description: '<tenant_path>/*' }), comment: Type.String() }),
          ),
        }),
      ),
    }),
  },
  { title: 'AppleAppSiteAssociation' },
);

/** GET /.well-known/assetlinks.json (Digital Asset Links statements for Android App Links). */
export const AndroidAssetLinks = Type.Array(
  Type.Object({
    relation: Type.Array(Type.Literal('delegate_permission/common.handle_all_urls')),
    target: Type.Object({
      namespace: Type.Literal('android_app'),
      package_name: Type.String(),
      sha256_cert_fingerprints: Type.Array(Type.String({ description: 'upper case, colon-separated' })),
    }),
    relation_extensions: Type.Object({
      'delegate_permission/common.handle_all_urls': Type.Object({
        dynamic_app_link_components: Type.Array(Type.Object({ '/': Type.String() })),
      }),
    }),
  }),
  { title: 'AndroidAssetLinks' },
);
