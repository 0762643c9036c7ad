// ECMA-262's Unicode property escapes (`\p{…}`, `u` flag) spelt as RE2 (re2js) reads them, for the properties its tables
// hold: registration refuses the others, so no pattern RE2 cannot compile reaches a call. Names are case-sensitive in
// both. unicode-properties.test.ts checks each name against V8 and re2js.

// General categories: RE2's short name, then ECMA-262's other names for it.
const CATEGORIES =
  "C Other|Cc Control cntrl|Cf Format|Cn Unassigned|Co Private_Use|Cs Surrogate|L Letter|LC Cased_Letter|" +
  "Ll Lowercase_Letter|Lm Modifier_Letter|Lo Other_Letter|Lt Titlecase_Letter|Lu Uppercase_Letter|" +
  "M Mark Combining_Mark|Mc Spacing_Mark|Me Enclosing_Mark|Mn Nonspacing_Mark|N Number|Nd Decimal_Number digit|" +
  "Nl Letter_Number|No Other_Number|P Punctuation punct|Pc Connector_Punctuation|Pd Dash_Punctuation|" +
  "Pe Close_Punctuation|Pf Final_Punctuation|Pi Initial_Punctuation|Po Other_Punctuation|Ps Open_Punctuation|" +
  "S Symbol|Sc Currency_Symbol|Sk Modifier_Symbol|Sm Math_Symbol|So Other_Symbol|Z Separator|Zl Line_Separator|" +
  "Zp Paragraph_Separator|Zs Space_Separator";

// The binary properties RE2 has: its name, then ECMA-262's names (RE2 spells ASCII "Ascii").
const BINARY =
  "Ascii ASCII|Any Any|Assigned Assigned|ASCII_Hex_Digit ASCII_Hex_Digit AHex|Alphabetic Alphabetic Alpha|" +
  "Dash Dash|Emoji Emoji|Emoji_Component Emoji_Component EComp|Emoji_Modifier Emoji_Modifier EMod|" +
  "Emoji_Modifier_Base Emoji_Modifier_Base EBase|Emoji_Presentation Emoji_Presentation EPres|" +
  "Extended_Pictographic Extended_Pictographic ExtPict|Hex_Digit Hex_Digit Hex|Lowercase Lowercase Lower|" +
  "Math Math|Quotation_Mark Quotation_Mark QMark|Terminal_Punctuation Terminal_Punctuation Term|" +
  "Uppercase Uppercase Upper|White_Space White_Space space WSpace";

// The scripts both know: RE2's name (the long one), then ECMA-262's other names (the ISO 15924 code).
const SCRIPTS =
  "Adlam Adlm|Ahom|Anatolian_Hieroglyphs Hluw|Arabic Arab|Armenian Armn|Avestan Avst|Balinese Bali|" +
  "Bamum Bamu|Bassa_Vah Bass|Batak Batk|Bengali Beng|Beria_Erfe Berf|Bhaiksuki Bhks|Bopomofo Bopo|" +
  "Brahmi Brah|Braille Brai|Buginese Bugi|Buhid Buhd|Canadian_Aboriginal Cans|Carian Cari|" +
  "Caucasian_Albanian Aghb|Chakma Cakm|Cham|Cherokee Cher|Chorasmian Chrs|Common Zyyy|Coptic Copt Qaac|" +
  "Cuneiform Xsux|Cypriot Cprt|Cypro_Minoan Cpmn|Cyrillic Cyrl|Deseret Dsrt|Devanagari Deva|" +
  "Dives_Akuru Diak|Dogra Dogr|Duployan Dupl|Egyptian_Hieroglyphs Egyp|Elbasan Elba|Elymaic Elym|" +
  "Ethiopic Ethi|Garay Gara|Georgian Geor|Glagolitic Glag|Gothic Goth|Grantha Gran|Greek Grek|" +
  "Gujarati Gujr|Gunjala_Gondi Gong|Gurmukhi Guru|Gurung_Khema Gukh|Han Hani|Hangul Hang|" +
  "Hanifi_Rohingya Rohg|Hanunoo Hano|Hatran Hatr|Hebrew Hebr|Hiragana Hira|Imperial_Aramaic Armi|" +
  "Inherited Zinh Qaai|Inscriptional_Pahlavi Phli|Inscriptional_Parthian Prti|Javanese Java|Kaithi Kthi|" +
  "Kannada Knda|Katakana Kana|Kawi|Kayah_Li Kali|Kharoshthi Khar|Khitan_Small_Script Kits|Khmer Khmr|" +
  "Khojki Khoj|Khudawadi Sind|Kirat_Rai Krai|Lao Laoo|Latin Latn|Lepcha Lepc|Limbu Limb|Linear_A Lina|" +
  "Linear_B Linb|Lisu|Lycian Lyci|Lydian Lydi|Mahajani Mahj|Makasar Maka|Malayalam Mlym|Mandaic Mand|" +
  "Manichaean Mani|Marchen Marc|Masaram_Gondi Gonm|Medefaidrin Medf|Meetei_Mayek Mtei|" +
  "Mende_Kikakui Mend|Meroitic_Cursive Merc|Meroitic_Hieroglyphs Mero|Miao Plrd|Modi|Mongolian Mong|" +
  "Mro Mroo|Multani Mult|Myanmar Mymr|Nabataean Nbat|Nag_Mundari Nagm|Nandinagari Nand|New_Tai_Lue Talu|" +
  "Newa|Nko Nkoo|Nushu Nshu|Nyiakeng_Puachue_Hmong Hmnp|Ogham Ogam|Ol_Chiki Olck|Ol_Onal Onao|" +
  "Old_Hungarian Hung|Old_Italic Ital|Old_North_Arabian Narb|Old_Permic Perm|Old_Persian Xpeo|" +
  "Old_Sogdian Sogo|Old_South_Arabian Sarb|Old_Turkic Orkh|Old_Uyghur Ougr|Oriya Orya|Osage Osge|" +
  "Osmanya Osma|Pahawh_Hmong Hmng|Palmyrene Palm|Pau_Cin_Hau Pauc|Phags_Pa Phag|Phoenician Phnx|" +
  "Psalter_Pahlavi Phlp|Rejang Rjng|Runic Runr|Samaritan Samr|Saurashtra Saur|Sharada Shrd|Shavian Shaw|" +
  "Siddham Sidd|Sidetic Sidt|SignWriting Sgnw|Sinhala Sinh|Sogdian Sogd|Sora_Sompeng Sora|Soyombo Soyo|" +
  "Sundanese Sund|Sunuwar Sunu|Syloti_Nagri Sylo|Syriac Syrc|Tagalog Tglg|Tagbanwa Tagb|Tai_Le Tale|" +
  "Tai_Tham Lana|Tai_Viet Tavt|Tai_Yo Tayo|Takri Takr|Tamil Taml|Tangsa Tnsa|Tangut Tang|Telugu Telu|" +
  "Thaana Thaa|Thai|Tibetan Tibt|Tifinagh Tfng|Tirhuta Tirh|Todhri Todr|Tolong_Siki Tols|Toto|" +
  "Tulu_Tigalari Tutg|Ugaritic Ugar|Unknown Zzzz|Vai Vaii|Vithkuqi Vith|Wancho Wcho|Warang_Citi Wara|" +
  "Yezidi Yezi|Yi Yiii|Zanabazar_Square Zanb";

type Names = Map<string, string>;
type Tables = { categories: Names; binary: Names; scripts: Names };
let tables: Tables | undefined;

// Read on the first property met: a pattern without one pays nothing for them.
function read(): Tables {
  tables ??= { categories: names(CATEGORIES, true), binary: names(BINARY, false), scripts: names(SCRIPTS, true) };
  return tables;
}

// "A B C|D E" as A for A, B and C, and D for D and E; the first name is RE2's, and ECMA-262's too unless repeated.
function names(table: string, firstIsEcma: boolean): Names {
  const map: Names = new Map();
  for (const entry of table.split("|")) {
    const [re2, ...others] = entry.split(" ") as [string, ...string[]];
    if (firstIsEcma) map.set(re2, re2);
    for (const name of others) map.set(name, re2);
  }
  return map;
}

/** RE2's spelling of a property, or why it has none and what to write instead. */
export type Re2Property = { name: string } | { lacks: string; fix: string };

/**
 * RE2's name for an ECMA-262 property expression (`L`, `Letter`, `gc=Lu`, `Script=Greek`, `sc=Grek`, `ASCII`), or
 * why RE2 cannot read it (a property its tables lack, Script_Extensions, a script named alone).
 */
export function re2Property(expression: string): Re2Property {
  const tables = read();
  const equals = expression.indexOf("=");
  const key = equals < 0 ? undefined : expression.slice(0, equals);
  const value = expression.slice(equals + 1);
  const name =
    key === undefined
      ? (tables.categories.get(value) ?? tables.binary.get(value))
      : key === "General_Category" || key === "gc"
        ? tables.categories.get(value)
        : key === "Script" || key === "sc"
          ? tables.scripts.get(value)
          : undefined;
  if (name !== undefined) return { name };
  if (key === "Script_Extensions" || key === "scx") {
    return {
      lacks: "Script_Extensions, which RE2 lacks",
      fix: `\\p{Script=${value}} is ${value}'s own characters only`,
    };
  }
  if (key === undefined && tables.scripts.has(value)) {
    return { lacks: "a script named alone, which a RegExp refuses", fix: `write \\p{Script=${value}}` };
  }
  return {
    lacks: "a property RE2 lacks",
    fix: "RE2 knows the general categories (\\p{L}, \\p{Lu}, \\p{Nd} …), the scripts (\\p{Script=Greek}) and ASCII, Any, Assigned, Alphabetic, Lowercase, Uppercase, White_Space, Hex_Digit, Emoji …",
  };
}

/** Each ECMA-262 property expression RE2 reads, with RE2's name for it (the tests check both engines on each). */
export function re2Properties(): Map<string, string> {
  const { categories, binary, scripts } = read();
  const all = new Map([...categories, ...binary]);
  for (const [name, re2] of categories) for (const key of ["gc", "General_Category"]) all.set(`${key}=${name}`, re2);
  for (const [name, re2] of scripts) for (const key of ["sc", "Script"]) all.set(`${key}=${name}`, re2);
  return all;
}
