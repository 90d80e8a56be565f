import { useState } from 'preact/hooks';
import { api, type DocumentStep, type SessionView, sendCapture } from '../api';
import { Capture } from '../capture';
import { issuingCountriesText } from '../countries';
import { t, tMaybe } from '../i18n';
import { Screen } from '../ui';

/**
 * The document step: its type, with the issuing countries the template accepts (its own screen unless only one type
 * is possible and any country will do), then one capture screen per required side of that type not yet uploaded. The
 * country is not asked: the document's reading decides it, and the check compares it with the accepted ones. The server's view says what is done, so a reload resumes
 * at the first side still missing.
 */

const UPLOADED = new Set(['uploaded', 'verified']);
const docName = (type: string) => tMaybe(`doc.${type}`, 'doc.id_document');

/** The document types the applicant may choose: those of the required documents, within the allowed ones. */
function choices(step: DocumentStep): string[] {
  const required = [...new Set(step.required_documents.flatMap((r) => r.types))];
  const allowed = step.allowed_document_types;
  const types = allowed.length ? required.filter((x) => allowed.includes(x)) : required;
  return types.length ? types : allowed;
}

/** The sides of `type` still to capture. */
function sidesToCapture(step: DocumentStep, type: string): string[] {
  const sides = [
    ...new Set(step.required_documents.filter((r) => r.types.includes(type)).map((r) => r.side)),
  ];
  const have = (side: string) =>
    step.documents.some((d) => d.doc_type === type && d.side === side && UPLOADED.has(d.upload_status));
  return (sides.length ? sides : ['single']).filter((s) => !have(s));
}

export function Document(props: {
  view: SessionView;
  step: DocumentStep;
  onView: (v: SessionView) => void;
  onHandoff?: () => void;
}) {
  const { step } = props;
  const types = choices(step);
  const started = step.documents.find((d) => d.doc_type !== 'selfie' && types.includes(d.doc_type))?.doc_type;
  const [type, setType] = useState<string | null>(
    started ?? (types.length === 1 ? (types[0] ?? null) : null),
  );
  const [chosen, setChosen] = useState(
    Boolean(started) || (types.length === 1 && !step.allowed_issuing_countries.length),
  );

  if (!chosen || !type) {
    return (
      <Choose step={step} types={types} type={type} onType={setType} onNext={() => type && setChosen(true)} />
    );
  }
  const side = sidesToCapture(step, type)[0] ?? 'single';
  const mode = step.capture_mode;
  return (
    <Screen step="document" title={t('document.title')}>
      {step.nfc === 'required' && (
        <p class="notice">{t('document.nfc_required', { tenant: props.view.tenant.display_name })}</p>
      )}
      <Capture
        key={`${type}-${side}`}
        kind="document"
        docType={type}
        title={t('capture.title', { doc: docName(type), side: t(`side.${side}` as 'side.single') })}
        instruction={t('capture.hint_document')}
        allowCamera={mode !== 'upload_only'}
        allowUpload={mode !== 'live_only'}
        send={(image, capture) =>
          sendCapture(
            props.view.flow_id,
            {
              doc_type: type,
              side,
              capture,
              mime_type: image.type === 'image/png' ? 'image/png' : 'image/jpeg',
            },
            image,
          )
        }
        onDone={async () => props.onView(await api.session())}
        {...(props.onHandoff ? { onHandoff: props.onHandoff } : {})}
      />
    </Screen>
  );
}

function Choose(props: {
  step: DocumentStep;
  types: string[];
  type: string | null;
  onType: (t: string) => void;
  onNext: () => void;
}) {
  const countries = issuingCountriesText(props.step.allowed_issuing_countries);
  return (
    <Screen step="document" title={t('document.title')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onNext();
        }}
      >
        <fieldset class="field">
          <legend>{t('document.type')}</legend>
          {props.types.map((type) => (
            <div class="check" key={type}>
              <input
                id={`doc-${type}`}
                type="radio"
                name="doc_type"
                value={type}
                required
                checked={props.type === type}
                onChange={() => props.onType(type)}
              />
              <label for={`doc-${type}`}>{docName(type)}</label>
            </div>
          ))}
        </fieldset>
        {countries && (
          <p class="notice" id="doc-countries">
            {t('document.countries', { countries })}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" data-action="next" disabled={!props.type}>
            {t('next')}
          </button>
        </div>
      </form>
    </Screen>
  );
}
