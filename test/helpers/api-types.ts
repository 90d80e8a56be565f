// The API's answers as the tests read them, derived from the TypeBox schemas (schemas/), so that a field renamed or
// retyped there fails the tests' typecheck instead of being redeclared by hand in each file. A check's evidence is
// free-form in the schema (each check type writes its own): a test names the part it reads as `E`.
import type { Static } from '@sinclair/typebox';
import type { AlertOut } from '../../schemas/alerts.js';
import type { ApplicantOut } from '../../schemas/applicants.js';
import type { CheckBatchOut } from '../../schemas/batches.js';
import type { AmlMatchOut, CheckOut } from '../../schemas/checks.js';
import type { DocumentOut } from '../../schemas/documents.js';
import type { FlowOut } from '../../schemas/flows.js';

/** A check (the schema's `Check`), its evidence read as `E`. */
export type ApiCheck<E = unknown> = Omit<CheckOut, 'evidence'> & { evidence: CheckOut['evidence'] & E };

/** A single flow's answer (the schema's `Flow`): its checks and documents, which a single flow always carries, and
 * its checks' evidence read as `E`. */
export type ApiFlow<E = unknown> = Omit<FlowOut, 'checks' | 'documents'> & {
  checks: ApiCheck<E>[];
  documents: DocumentOut[];
};

/** One match of an aml_screen check's evidence. */
export type AmlMatch = Static<typeof AmlMatchOut>;

/** An alert (the schema's `Alert`). */
export type ApiAlert = Static<typeof AlertOut>;

/** An applicant (the schema's `Applicant`). */
export type ApiApplicant = Static<typeof ApplicantOut>;

/** A check batch (the schema's `CheckBatch`). */
export type ApiBatch = Static<typeof CheckBatchOut>;
