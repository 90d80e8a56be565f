import { useState } from 'preact/hooks';
import { ApiFailure, api, type IntakeStep, type SessionView } from '../api';
import { COUNTRY_CODES, countryOptions } from '../countries';
import { t, tMaybe } from '../i18n';
import { Screen } from '../ui';
import { ErrorText, useAction } from './common';

/** The applicant's fields the page can ask for, with their input types. Each input is named as the field
 * (`name="dob"`): the automation contract of docs/journey.md. */
interface Input {
  name: string;
  type: 'text' | 'date' | 'email' | 'tel' | 'country';
  autocomplete: string;
}
const FIELDS: Record<string, Omit<Input, 'name'>> = {
  legal_name_first: { type: 'text', autocomplete: 'given-name' },
  legal_name_middle: { type: 'text', autocomplete: 'additional-name' },
  legal_name_last: { type: 'text', autocomplete: 'family-name' },
  business_name: { type: 'text', autocomplete: 'organization' },
  dob: { type: 'date', autocomplete: 'bday' },
  nationality: { type: 'country', autocomplete: 'off' },
  address_line1: { type: 'text', autocomplete: 'address-line1' },
  address_line2: { type: 'text', autocomplete: 'address-line2' },
  address_city: { type: 'text', autocomplete: 'address-level2' },
  address_region: { type: 'text', autocomplete: 'address-level1' },
  address_postal_code: { type: 'text', autocomplete: 'postal-code' },
  address_country: { type: 'country', autocomplete: 'country' },
  email: { type: 'email', autocomplete: 'email' },
  phone: { type: 'tel', autocomplete: 'tel' },
  tax_id: { type: 'text', autocomplete: 'off' },
};
/** A template's intake field (schemas/templates.ts INTAKE_FIELDS) that stands for several of the applicant's. */
const GROUPS: Record<string, string[]> = {
  legal_name: ['legal_name_first', 'legal_name_last'],
  address: ['address_line1', 'address_city', 'address_postal_code', 'address_country'],
};

const label = (name: string) => tMaybe(`field.${name}`, 'field.other');

/** The inputs still to fill: every field the applicant has not given yet (a group's fields when the view names
 * the template's intake field). */
function inputsOf(step: IntakeStep): (Input & { required: boolean })[] {
  return step.fields
    .filter((f) => !f.value_present)
    .flatMap((f) =>
      (GROUPS[f.name] ?? [f.name]).map((name) => ({
        name,
        ...(FIELDS[name] ?? { type: 'text' as const, autocomplete: 'off' }),
        required: f.required,
      })),
    );
}

/** Field errors from a 422's `detail` (loc ["body", name, …]). */
function serverErrors(e: unknown): Record<string, string> {
  if (!(e instanceof ApiFailure) || e.status !== 422) return {};
  const out: Record<string, string> = {};
  for (const d of e.detail) {
    const name = String(d.loc[1] ?? '');
    if (name) out[name] = t('intake.invalid', { field: label(name) });
  }
  return out;
}

export function Intake(props: { step: IntakeStep; onView: (v: SessionView) => void }) {
  const inputs = inputsOf(props.step);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const action = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    const missing: Record<string, string> = {};
    for (const i of inputs) {
      if (i.required && !values[i.name]?.trim())
        missing[i.name] = t('intake.missing', { field: label(i.name) });
    }
    setErrors(missing);
    if (Object.keys(missing).length) {
      document.getElementById(`f-${Object.keys(missing)[0]}`)?.focus();
      return;
    }
    const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
    void action.run(async () => {
      try {
        props.onView(await api.intake(body));
      } catch (err) {
        const fields = serverErrors(err);
        if (!Object.keys(fields).length) throw err;
        setErrors(fields);
      }
    });
  };

  const errorList = Object.entries(errors);
  return (
    <Screen step="intake" title={t('intake.title')}>
      <p class="muted">{t('intake.hint')}</p>
      {errorList.length > 0 && (
        <div class="error" role="alert">
          <p>{t('intake.errors')}</p>
          <ul>
            {errorList.map(([name, msg]) => (
              <li key={name}>
                <a href={`#f-${name}`}>{msg}</a>
              </li>
            ))}
          </ul>
        </div>
      )}
      <form noValidate onSubmit={submit}>
        {inputs.map((i) => (
          <Field
            key={i.name}
            input={i}
            value={values[i.name] ?? ''}
            error={errors[i.name]}
            onInput={(v) => setValues({ ...values, [i.name]: v })}
          />
        ))}
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="submit" class="primary" data-action="next" disabled={action.busy}>
            {t('next')}
          </button>
        </div>
      </form>
    </Screen>
  );
}

function Field(props: {
  input: Input & { required: boolean };
  value: string;
  error: string | undefined;
  onInput: (v: string) => void;
}) {
  const { input } = props;
  const id = `f-${input.name}`;
  const common = {
    id,
    name: input.name,
    required: input.required,
    'aria-required': input.required ? ('true' as const) : undefined,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': props.error ? `${id}-error` : undefined,
    autoComplete: input.autocomplete,
    value: props.value,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>
        {label(input.name)}
        {input.required && <span aria-hidden="true"> *</span>}
      </label>
      {input.type === 'country' ? (
        <select {...common} onChange={common.onInput}>
          <option value="">{t('field.choose')}</option>
          {countryOptions(COUNTRY_CODES).map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
      ) : (
        <input {...common} type={input.type} dir={input.type === 'text' ? 'auto' : undefined} />
      )}
      {props.error && (
        <p id={`${id}-error`} class="field-error">
          {props.error}
        </p>
      )}
    </div>
  );
}
