// One normalisation step: a foreign name written in Chinese characters (贝拉克·奥巴马, 弗拉基米尔·普京) read
// back as the sounds the characters transcribe, not as Chinese syllables. Chinese writes the parts of a foreign
// name apart with a middle dot, and transcribes foreign sounds with a small, fixed set of characters (the
// Xinhua transcription tables); several of them stand for a bare consonant (尔 r, 克 k, 斯 s, 特 t, 德 d,
// 夫 f, 姆 m). any-ascii reads them as Mandarin syllables (beilake aobama), which share little with the
// original. Characters not in the table keep their Mandarin reading.
import anyAscii from 'any-ascii';
import { partsWhollyIn } from './name-parts.js';

/** The middle dots that separate the parts of a transcribed foreign name. */
export const FOREIGN_NAME_DOT_RE = /[·・•‧･]/;
const FOREIGN_NAME_BREAK_RE = new RegExp(`(?:\\s|${FOREIGN_NAME_DOT_RE.source})+`);
const HAN_WORD_RE = /^\p{Script=Han}+$/u;

/** Transcription characters and the sound each stands for in a foreign name. Chinese does not tell l from
 * r (拉 is la and ra): the table writes l, and names read through it are compared with l and r alike. */
export const HAN_FOREIGN_SOUNDS: Readonly<Record<string, string>> = {
  阿: 'a',
  埃: 'e',
  艾: 'ai',
  安: 'an',
  奥: 'o',
  巴: 'ba',
  拜: 'bai',
  班: 'ban',
  贝: 'be',
  本: 'ben',
  比: 'bi',
  波: 'bo',
  伯: 'bo',
  博: 'bo',
  布: 'b',
  查: 'cha',
  达: 'da',
  戴: 'dai',
  丹: 'dan',
  德: 'd',
  迪: 'di',
  蒂: 'ti',
  丁: 'din',
  杜: 'du',
  顿: 'don',
  多: 'do',
  恩: 'n',
  尔: 'r',
  法: 'fa',
  菲: 'fi',
  费: 'fe',
  芬: 'fin',
  弗: 'f',
  福: 'fo',
  夫: 'f',
  盖: 'gai',
  戈: 'go',
  哥: 'go',
  格: 'g',
  哈: 'ha',
  汉: 'han',
  翰: 'han',
  赫: 'h',
  亨: 'hen',
  胡: 'hu',
  霍: 'ho',
  基: 'ji',
  吉: 'ji',
  加: 'ga',
  杰: 'je',
  // -ng read as n, like 丁 康 朗 (a foreign n): 普京 Putin
  京: 'jin',
  // Xinhua's Russian table: soft д/т before и (季米特洛夫 Dimitrov, 季莫申科 Timoshenko)
  季: 'ji',
  卡: 'ka',
  凯: 'kai',
  康: 'kon',
  科: 'ko',
  克: 'k',
  肯: 'ken',
  库: 'ku',
  拉: 'la',
  莱: 'lai',
  兰: 'lan',
  朗: 'lan',
  劳: 'lo',
  勒: 'l',
  雷: 'le',
  里: 'li',
  利: 'li',
  莉: 'li',
  丽: 'li',
  列: 'le',
  林: 'lin',
  琳: 'lin',
  卢: 'lu',
  鲁: 'lu',
  路: 'lu',
  伦: 'len',
  罗: 'lo',
  洛: 'lo',
  马: 'ma',
  玛: 'ma',
  迈: 'mai',
  麦: 'mai',
  曼: 'man',
  梅: 'me',
  门: 'men',
  蒙: 'mon',
  米: 'mi',
  莫: 'mo',
  默: 'mo',
  姆: 'm',
  穆: 'mu',
  纳: 'na',
  娜: 'na',
  内: 'ne',
  尼: 'ni',
  妮: 'ni',
  诺: 'no',
  帕: 'pa',
  佩: 'pe',
  皮: 'pi',
  普: 'pu',
  奇: 'chi',
  乔: 'jo',
  切: 'che',
  萨: 'sa',
  塞: 'se',
  瑟: 'se',
  森: 'sen',
  沙: 'sha',
  莎: 'sha',
  什: 'sh',
  史: 'sh',
  斯: 's',
  苏: 'su',
  索: 'so',
  塔: 'ta',
  泰: 'tai',
  特: 't',
  图: 'tu',
  托: 'to',
  瓦: 'va',
  万: 'van',
  威: 'wi',
  维: 'vi',
  韦: 'we',
  温: 'wen',
  沃: 'vo',
  乌: 'u',
  西: 'si',
  希: 'hi',
  谢: 'she',
  逊: 'son',
  雅: 'ya',
  亚: 'ya',
  娅: 'ya',
  耶: 'ye',
  叶: 'ye',
  伊: 'i',
  因: 'in',
  约: 'yo',
  泽: 'ze',
  扎: 'za',
  兹: 'z',
  茨: 'ts',
  佐: 'zo',
};

/** A run of Han characters from a transcribed foreign name, read character by character through the table. */
export function hanForeignReading(run: string, russian?: 'd' | 't'): string {
  let out = '';
  for (const ch of run) {
    const r = HAN_FOREIGN_SOUNDS[ch] ?? anyAscii(ch).toLowerCase();
    out += russian === undefined ? r : russianSound(ch, r, russian);
  }
  return out;
}

/** Characters that in transcriptions of Russian names also stand for в (弗 before a consonant, 夫 at a syllable's
 * end: 弗拉基米尔 Vladimir, 拉夫罗夫 Lavrov), and palatal ji syllables that also stand for a soft д or т before
 * и (季米特洛夫 Dimitrov, 季莫申科 Timoshenko, 弗拉基米尔 Vladimir, 普京 Putin). */
const RUSSIAN_V = new Set(['弗', '夫']);
const RUSSIAN_SOFT = new Set(['基', '吉', '季', '京']);

function russianSound(ch: string, reading: string, soft: 'd' | 't'): string {
  if (RUSSIAN_V.has(ch)) return 'v';
  if (RUSSIAN_SOFT.has(ch)) return soft + reading.slice(1);
  return reading;
}

/** The readings of a transcribed foreign name (parts apart with a middle dot) through Xinhua's Russian table,
 * when they differ from the table's: 弗/夫 as v and a palatal ji as soft d, and as soft t (Mandarin has no
 * voicing contrast to tell them apart). Screened beside the name as alternatives; empty for other names. */
export function hanRussianReadings(raw: string): string[] {
  if (!FOREIGN_NAME_DOT_RE.test(raw)) return [];
  const parts = partsWhollyIn(raw, FOREIGN_NAME_BREAK_RE, HAN_WORD_RE);
  if (parts === undefined || parts.length < 2) return [];
  if (![...raw].some((ch) => RUSSIAN_V.has(ch) || RUSSIAN_SOFT.has(ch))) return [];
  const plain = parts.map((p) => hanForeignReading(p)).join(' ');
  const out: string[] = [];
  for (const soft of ['d', 't'] as const) {
    const r = parts.map((p) => hanForeignReading(p, soft)).join(' ');
    if (r !== plain && !out.includes(r)) out.push(r);
  }
  return out;
}
