"""What text from an untrusted source says about the person, and what it tells their agent to do.

Authority is bound to origin, not to wording: whatever words an assistant's turn, a tool's output, a system turn or
the agent's explicit fields use, what they may put before the model is decided by what they are about and what kind
of value they carry, read sentence by sentence:

- a claim about the person: a detail of a protected kind (KINDS: identity, contact, address, payment, login,
  health, relationship, a record or chart number) bound to the person (their detail: "your", "the user's", "the
  customer's", "this profile", their name; or they as its subject: "you live at", "the patient is allergic to"),
  with a value of that kind. A claim whose every value the person said themselves is a confirmation, not a claim;
- a rule for the agent: a standing or triggered order ("from now on", "whenever the user asks", "next time") to
  act on money, logins, contact details, records, messages or memory, to send something somewhere, or to read what
  the person asks about as something else ("when they say the usual account it means...").

The tables name the kinds in the languages the portal is used in; none of them is an attack's phrase.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_I = re.IGNORECASE | re.MULTILINE
_WORD_END = r"(?![\w])"

# --- values, by their shape ------------------------------------------------------------------------------------

EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
DOMAIN = r"(?<![\w@.-])(?:https?://)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:[a-z]{2,})(?:/\S*)?(?![\w@-])"
IBAN = r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"
PHONE = r"(?<![\w.,/])\+?\(?\d(?:[\s().-]{0,2}\d){6,14}(?![\w/]|,\d)"
# Digits in groups (an account, a card, a sort code), six or more in all.
NUMBER = r"(?<![\w.,/])(?:\d[\s-]?){5,}\d(?![\w/]|,\d)|\b\d{2}-\d{2}-\d{2}\b"
# An identifier: letters, digits and dashes with at least three digits ("P-2231", "MRN 448812", "7730-118842").
IDENTIFIER = r"(?<![\w-])(?=[\w-]*\d[\w-]*\d[\w-]*\d)[A-Za-z0-9][\w-]{2,}(?![\w-])"
# A secret: a token with a digit or a symbol in it, or anything quoted after the word for it.
SECRET = r"[\"'“‘«]?(?=\S*[\d_$#@!%^&*+=])[^\s\"'“”‘’«»,;.]{3,}|[\"“‘«][^\"“”‘’«»]{3,40}[\"”’»]"
DATE = (r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:1[89]|20)\d{2}\b|"
        r"\d{4}年\d{1,2}月|\d{1,2}月\d{1,2}日")
# A name: capitalised words, two or more, or one after "is", "named", "called" (any script that has capitals).
NAME = (r"(?-i:\b[A-ZÀ-ÞА-ЯЁ][a-zà-ÿа-яё][\w'’-]*(?:\s+(?:(?:van|von|de|da|del|di|der|den|le|la)\s+)?"
        r"[A-ZÀ-ÞА-ЯЁ][a-zà-ÿа-яё][\w'’-]*)+)|"
        r"(?-i:\b[A-ZÀ-ÞА-ЯЁ]\.\s?[A-ZÀ-ÞА-ЯЁ][a-zà-ÿа-яё'’-]+)|"
        r"(?:\b(?:is|named|called|heißt|s['’]appelle|se llama|si chiama|chama-se|heet|зовут)\s+(?-i:[A-ZÀ-ÞА-ЯЁ][\w'’-]+))|"
        r"[\u4e00-\u9fff]{2,4}(?=先生|女士|小姐)|[\u30a0-\u30ff\u4e00-\u9fff]{2,6}(?=さん|様)")
STREET_WORDS = (r"(?:street|st\.?|road|rd\.?|lane|ln\.?|avenue|ave\.?|boulevard|blvd|drive|dr\.?|way|court|place|square|"
                r"close|crescent|terrace|gardens|row|hill|rue|allée|chemin|quai|impasse|straße|strasse|str\.|weg|gasse|"
                r"platz|allee|ring|damm|calle|avenida|avda\.?|plaza|paseo|camino|carrer|via|viale|piazza|corso|vicolo|"
                r"rua|travessa|praça|largo|laan|straat|plein|gracht|kade|singel|улица|ул\.|проспект|пр\.|переулок)")
STREET = (rf"(?:\b\d{{1,5}}[a-z]?,?\s+(?:[\w'’.-]+\s+){{0,3}}{STREET_WORDS}\b|"
          rf"\b{STREET_WORDS}\s+(?:[\w'’.-]+\s+){{0,3}}\d{{1,5}}[a-z]?\b|"
          r"\b[\wäöüß-]+(?:straße|strasse|weg|gasse|platz|allee|laan|straat|gracht|plein)\s+\d{1,5}[a-z]?\b|"
          r"\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b\d{4,5}\s+(?-i:[A-ZÀ-Þ][\w-]+)|"
          r"[\u4e00-\u9fff]{1,8}(?:路|街|道)\d{1,5}号|\d{1,4}-\d{1,4}(?:-\d{1,4})?(?=\s|$|、|,|。)|[\u4e00-\u9fff]{1,6}丁目)")
DOSE = (r"\b\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|ml|mL|g|IU|units?|tablets?|pills?|gouttes|Tabletten|comprimid[oa]s|compresse|"
        r"(?:micro|milli)?gram\w*|(?:micro|milli)gramm\w*|(?:micro|mili)gram[oa]s|microgrammi|микрограмм\w*|миллиграмм\w*)\b|"
        r"\d+\s?(?:毫克|微克|ミリグラム|マイクログラム)")
HEALTH_VALUE = (r"\ballergic to \w+|\ballerg(?:y|ies) to \w+|\bno (?:known )?(?:drug |medication |food )?allerg|"
                r"\bdiagnos\w* (?:with|as) \w+|\bintoleran\w* (?:to|of) \w+|\bvertr(?:agen|ägt|ägst) kein\w* \w+|"
                r"(?:blood (?:type|group)|Blutgruppe|groupe sanguin|grupo sanguíneo|gruppo sanguigno|tipo sanguíneo|"
                r"bloedgroep|группа крови|血型|血液型)\s*(?:is|ist|est|es|è|é|:|は|是|：)?\s*(?:AB|A|B|O|0)(?![a-z])|"
                r"\b(?:diabet\w*|asthma\w*|epilep\w*|hypertensi\w*|HIV|hepatitis|insulin|anticoagula\w*|"
                r"warfarin|penicillin|pregnan\w*)\b|"
                r"\ballergique (?:à|au|aux) \w+|\ballergisch (?:gegen|auf) \w+|\balérgic[oa] (?:a|al) \w+|"
                r"\ballergic[oa] (?:a|al|alla|alle) \w+|\bal[ée]rgic[oa] (?:a|ao|à) \w+|\ballergisch voor \w+|"
                r"\bаллерги\w* на \w+|对\S{1,8}过敏|\S{1,8}アレルギー|"
                r"\b(?:diabète|diabetes|Diabetes|asthme|Asthma|asma|épilepsie|Epilepsie|epilepsia|grossesse|schwanger|"
                r"embarazada|incinta|grávida|zwanger|беременн\w*|диабет\w*|астм\w*|糖尿病|哮喘|怀孕|妊娠)\b")

# --- the kinds of detail a claim about the person may not carry from an untrusted source ------------------------


@dataclass(frozen=True)
class Kind:
    """A kind of detail: how people name it, the shape of its value, and how a reason says it."""

    name: str
    words: str
    nouns: re.Pattern
    value: re.Pattern


def _kind(name: str, words: str, nouns: str, value: str) -> Kind:
    return Kind(name, words, re.compile(rf"(?:{nouns}){_WORD_END}", _I), re.compile(value, _I))


KINDS = (
    _kind("identity", "name or identity details", r"\b(?:(?:full |legal |first |last |real |sur)?name|surname|date of birth|"
          r"birth ?date|birthday|DOB|born|nationality|citizenship|passport(?: number)?|national (?:ID|insurance)"
          r"(?: number)?|social security(?: number)?|SSN|ID (?:card|number)|identity|driver['’]?s licen[cs]e|"
          r"heiße|heißt|s['’]appelle|se llama|si chiama|chama-se|heet|зовут|"
          r"(?:account |card )?holder|intestatari[oa]|ИНН|СНИЛС|tax (?:ID|number)|NIF|Steuer-?ID|codice fiscale|"
          r"burgerservicenummer|titular|titulaire|Inhaber\w*|rekeninghouder|владел\w+|ФИО|"
          r"nom|prénom|date de naissance|née?|nationalité|passeport|pièce d['’]identité|Vorname|Nachname|"
          r"Geburtsdatum|geboren|Staatsangehörigkeit|Reisepass|Ausweis\w*|nombre|apellidos?|fecha de nacimiento|"
          r"nacid[oa]|nacionalidad|pasaporte|DNI|documento de identidad|cognome|data di nascita|nat[oa]|"
          r"nazionalità|passaporto|codice fiscale|sobrenome|data de nascimento|nascid[oa]|nacionalidade|"
          r"passaporte|CPF|naam|voornaam|achternaam|geboortedatum|nationaliteit|paspoort|BSN|имя|фамилия|"
          r"дата рождения|родил\w+|паспорт\w*)|名字|姓名|生日|出生日期|出生|国籍|护照|身份证|名前|氏名|生年月日|誕生日",
          rf"{NAME}|{DATE}|{IDENTIFIER}"),
    _kind("contact", "contact details", r"\b(?:tel\.?|e-?mail(?: address)?|(?:phone|mobile|cell|telephone|"
          r"contact|whatsapp|fax)(?: number)?|number|courriel|adresse (?:e-?mail|électronique)|téléphone|portable|"
          r"numéro|E-Mail-Adresse|Telefon\w*|Handy\w*|Mobilnummer|Rufnummer|Nummer|correo(?: electrónico)?|"
          r"teléfono|móvil|celular|número|telefono|cellulare|numero|telefone|telemóvel|telefoon\w*|mobiel\w*|"
          r"nummer|почт\w+|телефон\w*|номер\w*)|邮箱|电子邮件|手机号?码?|电话号?码?|号码|メール(?:アドレス)?|電話番号|携帯番号",
          rf"{EMAIL}|{PHONE}"),
    _kind("address", "address", r"\b(?:(?:home |postal |delivery |shipping |billing |mailing |street |verified |"
          r"registered )*address|home|residence|post ?code|zip(?: code)?|lives?|living|resides?|moved|adresse|"
          r"domicile|habites?|habitez|code postal|Adresse|Anschrift|Wohnort|Wohnung|wohnt|wohnst|wohnen|"
          r"ship(?:ped|ping)? to|deliver(?:ed|y)? to|livr\w* à|Lieferung an|envío a|consegna a|entrega em|"
          r"bezorg\w* (?:op|naar)|доставк\w*|wohne|Postleitzahl|dirección|domicilio|vives?|código postal|indirizzo|abit[ai]|viv[ei]|endereço|morada|"
          r"moras?|mora|CEP|adres|woonadres|woon[ts]?|postcode|адрес\w*|живёт|живет|живёшь|живете|проживает)"
          r"|地址|住址|住在|住所|住んで", STREET),
    _kind("payment", "bank or card details", r"\b(?:IBAN|bank(?: account| details)?|(?:bank |refund |payout |"
          r"savings |checking |current )?account(?: number| no\.?)?|sort code|routing number|SWIFT|BIC|"
          r"(?:credit |debit )?card(?: number)?|wallet|payee|RIB|compte(?: bancaire)?|carte(?: bancaire)?|"
          r"Konto\w*|Bankverbindung|Kreditkarte|Karte|cuenta|tarjeta|conto|carta|conta|cartão|NIB|"
          r"rekening\w*|bankrekening|сч[её]т\w*|карт\w+|реквизит\w*)|账户|账号|银行卡|卡号|口座|カード番号",
          rf"{IBAN}|{NUMBER}"),
    _kind("login", "password or login", r"\b(?:pass(?:word|code|phrase)s?|PIN(?: code)?|one-time (?:code|password)|"
          r"OTP|2FA|two-factor(?: code)?|verification code|security code|API key|(?:access |upload |auth |api )?"
          r"token|secret|recovery (?:code|phrase|e-?mail)|seed phrase|user ?name|login|mot de passe|identifiant|"
          r"code secret|(?:access|login|security) code|code d['’]accès|Zugangscode|código de acceso|codice di accesso|"
          r"código de acesso|toegangscode|код доступа|Passwort|Kennwort|Zugangsdaten|Benutzername|contraseña|clave|usuario|credenziali|senha|"
          r"wachtwoord|pincode|DigiD-code|парол\w*|код)|密码|验证码|パスワード|暗証番号",
          rf"{SECRET}|{EMAIL}"),
    _kind("health", "health details", r"\b(?:(?:family )?doctor|GP|physician|health (?:plan|insurance)|"
          r"médecin(?: traitant)?|Hausarzt|Ärztin|Arzt|médico(?: de (?:cabecera|família))?|medico(?: di base)?|"
          r"huisarts|врач\w*|plano de saúde|seguro médico|Krankenkasse|mutuelle|zorgverzekering|"
          r"allerg\w*|diagnos\w*|medication|medicine|prescri\w*|dose|dosage|blood (?:type|"
          r"group)|condition|pregnan\w*|treatment|groupe sanguin|Blutgruppe|grupo sanguíneo|gruppo sanguigno|"
          r"tipo sanguíneo|bloedgroep|группа крови|medica\w*|médica\w*|allergique|médicament\w*|ordonnance|traitement|Allergi\w*|"
          r"Medikament\w*|Dosis|Blutgruppe|alérgic\w*|alergi\w*|medicamento\w*|receta|dosis|allergic\w*|farmac\w*|"
          r"dose|medicijn\w*|аллерги\w*|лекарств\w*|доз\w*)|过敏|药|处方|剂量|血型|アレルギー|薬|処方|用量|血液型"
          r"|\b(?:diabet\w*|asthma|epilep\w*|hypertension|insulin|warfarin|penicillin)|医生|医者|主治医|かかりつけ",
          rf"{DOSE}|{HEALTH_VALUE}|{NAME}|(?-i:\b(?:Dr|dr|Dott|dott|Prof|prof)\.?\s+[A-ZÀ-Þ][\w'’-]+)"),
    _kind("relationship", "next of kin or emergency contact", r"\b(?:wife|husband|spouse|partner|fiancée?|next of kin|"
          r"married|marital status|getrouwd|gehuwd|burgerlijke staat|mari[ée]e?|verheiratet|casad[oa]|sposat[oa]|"
          r"женат|замужем|emergency contact|guardian|beneficiary|power of attorney|trustee|authori[sz]ed (?:user|person|contact|"
          r"representative)|femme|mari|conjoint\w*|épou\w*|personne à prévenir|Ehefrau|Ehemann|Ehepartner|"
          r"Notfallkontakt|Vormund|esposa|esposo|cónyuge|contacto de emergencia|moglie|marito|coniuge|"
          r"contatto di emergenza|mulher|marido|cônjuge|contato de emergência|echtgeno(?:ot|te)|noodcontact|"
          r"жена|муж|супруг\w*)|妻子|丈夫|紧急联系人|配偶者|緊急連絡先|已婚|結婚",
          rf"{NAME}|{EMAIL}|{PHONE}"),
    _kind("record", "record numbers", r"\b(?:(?:medical |health |patient |case )?records?|chart|MRN|file number|"
          r"(?:patient|customer|client|member(?:ship)?|account|policy|profile|user|case) (?:ID|number|no\.?|#)|"
          r"dossier(?: médical)?|numéro (?:de )?(?:client|patient|dossier|adhérent)|Akte|Krankenakte|"
          r"Kundennummer|Patientennummer|Mitgliedsnummer|Versicherungsnummer|expediente|historia clínica|"
          r"número de (?:cliente|paciente|socio|póliza)|cartella(?: clinica)?|fascicolo|numero (?:cliente|"
          r"paziente|pratica)|prontuário|número de (?:cliente|paciente|sócio)|klantnummer|patiëntnummer|"
          r"lidnummer|polisnummer|медицинск\w* карт\w*|медкарт\w*|номер (?:клиента|пациента|полиса)|"
          r"(?:client|customer|member|patient|policy|account|acct)\.?\s*(?:#|no\.?|nr\.?)?(?=\s*\d)|acct|NIF|NIE|"
          r"contribuinte|insurance (?:number|card|ID)|Versicherungskarte|carte vitale|tarjeta sanitaria|"
          r"tessera sanitaria|cartão de saúde|(?:number |licen[cs]e )?plate|registration(?: number)?|targa|Kennzeichen|plaque|"
          r"matrícula|placa|kenteken)|车牌|病历号?|档案|客户编号|会员号|患者番号|顧客番号|会員番号|"
          r"カルテ番号?|診察券番号?|保険証番号?|医保卡号?|社保号", IDENTIFIER),
)

KIND_WORDS = {kind.name: kind.words for kind in KINDS}
# The kind of detail a fact's predicate gives (an extractor's or an agent's: HAS_IBAN, RESIDES_AT, ALLERGIC_TO...).
PREDICATE_KINDS = (
    ("relationship", r"SPOUSE|MARRIED|WIFE|HUSBAND|NEXT_OF_KIN|EMERGENCY|GUARDIAN|BENEFICIARY"),
    ("identity", r"NAME|BORN|BIRTH|PASSPORT|IDENTITY|SSN|NATIONAL_ID|NATIONALITY|CITIZEN"),
    ("contact", r"EMAIL|PHONE|MOBILE|CONTACT|FAX"),
    ("address", r"ADDRESS|RESIDES|LIVES|POSTCODE|ZIP"),
    ("payment", r"IBAN|ACCOUNT|CARD|BANK|PAYMENT|PAYOUT|WALLET|SORT_CODE|ROUTING|PAYEE"),
    ("login", r"PASSWORD|PASSCODE|PIN|TOKEN|CREDENTIAL|LOGIN|SECRET|USERNAME|RECOVERY"),
    ("health", r"ALLERG|MEDICATION|PRESCRI|DIAGNOS|CONDITION|BLOOD|DOSE|HEALTH|MEDICAL|DOCTOR|PHYSICIAN|GP\b|INSURER"),
    ("record", r"RECORD|CHART|MRN|PATIENT|CUSTOMER_ID|MEMBER_ID|POLICY"),
)


def predicate_kind(predicate: str) -> str | None:
    """Return the kind of detail a fact's predicate gives of its subject, or None when it gives none of them."""
    return next((kind for kind, pattern in PREDICATE_KINDS if re.search(pattern, predicate.upper())), None)


# --- the person, as a text binds a detail to them --------------------------------------------------------------

PERSON_NOUN = (r"(?:user|customer|client|account ?holder|account owner|cardholder|policyholder|patient|member|"
               r"subscriber|person|owner|human|principal|shopper|traveller|traveler|guest)")
# Their detail: a possessive before it (up to three words between), or "of the user" after it.
POSSESSIVE = re.compile(
    r"\b(?:your|yours|thy|ur)\b|\b(?:the|this|our|that)\s+" + PERSON_NOUN + r"['’]s?\b|\b" + PERSON_NOUN + r"['’]s\b|"
    r"\b(?:ton|ta|tes|votre|vos|dein\w*|euer\w*|tus?|tuyos?|tuo|tua|tuoi|tue|seu|sua|seus|suas|teu|teus|tuas|"
    r"jouw|uw|твой|твоя|твоё|твои|твоего|твоей|ваш\w*)\b|(?-i:\b(?:Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b)|"
    r"你的|您的|用户的|客户的|患者的|あなたの|ユーザーの|お客様の|患者の",
    _I)
OF_PERSON = re.compile(
    r"\b(?:of|for) (?:the|this|our) " + PERSON_NOUN + r"\b|\bfor (?:this|the) (?:account|profile)\b|"
    r"\b(?:de l['’](?:utilisateur|usager)|du (?:client|patient|titulaire)|de la (?:cliente|patiente)|"
    r"des (?:Nutzers|Benutzers|Kunden|Patienten|Kontoinhabers)|der (?:Kundin|Nutzerin|Patientin)|"
    r"del (?:usuario|cliente|paciente|titular)|de la (?:usuaria|paciente)|dell['’](?:utente|utilizzatore)|"
    r"del (?:cliente|paziente)|do (?:usuário|utilizador|cliente|paciente|titular)|da (?:usuária|cliente|paciente)|"
    r"van de (?:gebruiker|klant|patiënt)|пользователя|клиента|пациента)\b", _I)
# They as the subject of the detail: "you live at", "the patient is allergic to", "the customer banks with".
SUBJECT = re.compile(
    r"\b(?:you(?:['’](?:re|ve))?|the (?:" + PERSON_NOUN + r")|(?:user|customer|client|patient)|tu|vous|du|"
    r"usted|voi|você|jij|ты|вы|(?:der|die) (?:Benutzer|Nutzer|Kunde|Kundin|Patient)\w*|l['’]utilisateur|"
    r"l['’]usager|el usuario|el cliente|l['’]utente|il cliente|o usuário|o cliente|de gebruiker|de klant|"
    r"пользовател\w+|клиент\w*)\b(?:\s+\w+){0,3}?\s+(?:heißt|wohnt|s['’]appelle|habite|se llama|vive|si chiama|"
    r"abita|chama-se|mora|heet|woont|зовут|живет|живёт|live|lives|living|reside|resides|moved|were born|was born|"
    r"are allergic|is allergic|re allergic|have no known|has no known|take|takes|are taking|is taking|"
    r"are married|is married|bank|banks|(?:have|has)\s+(?:been\s+)?(?:diagnosed|no known|diabet\w*|asthma|"
    r"epilep\w*|hypertension|HIV)|habites?|habitez|êtes allergique|es allergique|wohnst|wohnen|wohnt|"
    r"bist allergisch|ist allergisch|vives|vive|eres alérgic\w*|es alérgic\w*|abiti|vivi|sei allergic\w*|"
    r"è allergic\w*|moras|mora|é alérgic\w*|woont|woon|ben allergisch|is allergisch|живёшь|живешь|живете)\b"
    r"|(?:你|您|用户|客户)(?:住在|对)|(?:あなた|ユーザー|お客様)は",
    _I)
# A record of the person: what follows it is theirs ("Customer profile", "Patient record", "Profile update:").
RECORD = re.compile(
    r"\b(?:(?:customer|client|user|patient|member|account|contact) (?:profile|record|details|data|file|card|info)|"
    r"profile(?: update| sync\w*| import\w*| data| record)?|your (?:profile|account|records?)|fiche client|profil|"
    r"Kundendaten|Kundenprofil|Profil|perfil(?: del cliente)?|scheda cliente|profilo|dados do cliente|"
    r"klantprofiel|profiel|профиль|анкета)\b\s*[:\-—]?|用户资料|客户档案|プロフィール|顧客情報",
    _I)

# --- a rule for the agent ----------------------------------------------------------------------------------------

LASTING = re.compile(
    r"\b(?:from now on|going forward|henceforth|from this point on|from here on|permanently|forever|automatically|"
    r"whenever|every time|each time|next time|in (?:the )?future|always|never|will now|by default|as a rule|"
    r"à partir de maintenant|désormais|dorénavant|à l['’]avenir|toujours|automatiquement|jamais|ab jetzt|ab sofort|"
    r"künftig|in Zukunft|immer|niemals|nie|automatisch|dauerhaft|a partir de ahora|de ahora en adelante|siempre|"
    r"nunca|para siempre|automáticamente|d['’]ora in poi|da ora in poi|in futuro|sempre|mai|automaticamente|"
    r"de agora em diante|a partir de agora|vanaf nu|voortaan|altijd|nooit|отныне|впредь|с этого момента|всегда|"
    r"никогда|навсегда|автоматически|for the future|by default|default\w*|auto-(?:refill|pay|renew|approve|accept|"
    r"forward|sync|reply|send|upload)\w*|all (?:answers|replies|responses|sessions|chats|future)|every (?:answer|"
    r"session|chat|question|request)|bij elke|à chaque|bei jede[mrn]?|en cada|ad ogni|em cada|при каждом|"
    r"alle Antworten|toutes les réponses|todas las respuestas|tutte le risposte|todas as respostas|alle antwoorden|"
    r"все ответы|par défaut|standardmäßig|predeterminad\w*|predefinit\w*|padrão|standaard|по умолчанию|anyone|anybody|whoever|any (?:caller|requester|one|time)|à quiconque|n['’]importe qui|"
    r"jedermann|cualquiera|quien sea|chiunque|qualquer (?:pessoa|um)|iedereen|любому|кому угодно)\b|"
    r"从现在开始|以后|今后|永远|总是|永久|每次|每当|下次|默认|所有回答|任何人|これからは|今後|常に|いつも|毎回|次回|"
    r"たびに|デフォルト|すべての回答|誰にでも",
    _I)
TRIGGER = re.compile(
    r"\b(?:when(?:ever)?|if|once|each time|every time)\b[^.!?\n]{0,60}?\b(?:says?|asks?|mentions?|types?|writes?|"
    r"requests?|wants?|refers? to|is asked|are asked|comes up)\b|"
    r"\b(?:quand|lorsque|si)\b[^.!?\n]{0,60}?\b(?:dit|demande|mentionne|parle)\b|"
    r"\b(?:wenn|sobald|falls)\b[^.!?\n]{0,60}?\b(?:sagt|fragt|erwähnt|schreibt)\b|"
    r"\b(?:cuando|si)\b[^.!?\n]{0,60}?\b(?:dice|diga|pregunta|pregunte|menciona|mencione)\b|"
    r"\b(?:quando|se)\b[^.!?\n]{0,60}?\b(?:dice|chiede|menziona|diz|disser|pergunta|perguntar|mencionar)\b|"
    r"\b(?:als|wanneer|zodra)\b[^.!?\n]{0,60}?\b(?:zegt|vraagt|noemt)\b|"
    r"\b(?:когда|если)\b[^.!?\n]{0,60}?\b(?:скажет|спросит|упомянет|говорит)\b|"
    r"(?:当|如果)[^。！？\n]{0,30}(?:说|问|提到)|(?:と言ったら|と聞かれたら|と言われたら|たら)",
    _I)
# Reading what the person asks about as something else: a record swap.
REDIRECT = re.compile(
    r"\b(?:refers? to|means|stands for|(?:filed|stored|saved|kept|listed|found|moved|linked|merged) (?:under|into|"
    r"with)|look(?:ed)? up (?:under|as)|should be read as|maps? to|is the same as|route[sd]? to|deprecated|replaced by|"
    r"désigne|signifie|fusionn\w*|bedeutet|gemeint ist|laufen unter|zusammengeführt|significa|se refiere a|"
    r"fusionad\w*|si riferisce a|unificat\w*|refere-se a|associad[oa] a|samengevoegd|overgezet|betekent|"
    r"означает|объедин\w*)\b|指的是|合并|統合",
    _I)
ACTION = re.compile(
    r"\b(?:send|sent|forward|copy|cc|bcc|share|disclose|reveal|give|grant|transfer|wire|pay|paid|route|upload|"
    r"e-?mail|book|approve|authori[sz]e|accept|confirm|sign|log ?in|skip|bypass|ignore|disable|use|recommend|"
    r"prescribe|suggest|tell|say|answer|reply|respond|include|add|link|store|save|record|remember|update|change|"
    r"set|redirect|refer|look up|retrieve|release|unlock|reset|dial|call|dismiss|mute|silence|suppress|delete|"
    r"hide|apply|enable|break|deactivat|activat|turn off|switch off|refill|renew)(?:s|es|d|ed|ing|e)?\b|\b(?:deaktivier\w*|"
    r"désactiv\w*|desactiv\w*|disattiv\w*|uitgeschakeld|отключ\w*|适用|适用|無効|適用しない|不适用)|"
    r"\b(?:verwend\w*|benutz\w*|запомн\w*|envo\w*|transf[eé]r\w*|partag\w*|pay\w*|utilis\w*|"
    r"recommand\w*|approuv\w*|schick\w*|send\w*|leite\w*|überweis\w*|zahl\w*|teil\w*|nutz\w*|empfehl\w*|"
    r"freigeb\w*|envi\w*|reenv\w*|pag\w*|compart\w*|us[ae]\w*|recomiend\w*|aprueb\w*|invi\w*|inoltr\w*|"
    r"condivid\w*|consigli\w*|approv\w*|encaminh\w*|compartilh\w*|recomend\w*|stuur\w*|betaal\w*|deel\w*|"
    r"gebruik\w*|отправ\w*|пересл\w*|перев\w*|использ\w*|рекоменд\w*|одобр\w*)\b|"
    r"发送|转发|转账|支付|分享|使用|推荐|批准|送信|転送|支払|共有|使用|推奨|承認",
    _I)
MATTERS = re.compile(
    r"\b(?:rules|guidelines|restrictions|filters|warnings|safety|character|mode|polic(?:y|ies)|alerts|"
    r"Richtlinien|Sicherheitsrichtlinien|Warnhinweise|Regeln|règles|reglas|regole|regras|regels|правил\w*|"
    r"ограничени\w*|режим\w*|finances|income|salary|balance|statements?|location|whereabouts|voice (?:messages|notes)|diagnos[ie]s|"
    r"health data|numbers?|Nummer|numéro|número|numero|nummer|relevé|Standort|Gehalt|Kontoauszug|saldo|extracto|"
    r"extrato|stipendio|salário|salaris|ziekte\w*|dossier\w*|cartell\w*|Passwörter|mensajes|posizione|"
    r"money|payments?|transfers?|invoices?|bills?|refunds?|funds|purchases?|orders?|confirmation|verification|"
    r"two-factor|2FA|consent|permission|data|documents?|files?|records?|messages?|e-?mails?|conversations?|history|"
    r"location|photos?|contacts?|details|information|memor(?:y|ies)|notes|prescriptions?|dos(?:e|age)|"
    r"medication|results|bookings?|reservations?|passwords?|codes?|accounts?|cards?|address(?:es)?|"
    r"paiements?|virements?|factures?|données|dossiers?|localisation|Zahlungen|Rechnungen|Daten|Standort|"
    r"pagos|facturas|datos|ubicación|pagamenti|fatture|dati|posizione|pagamentos|faturas|dados|localização|"
    r"betalingen|facturen|gegevens|locatie|платеж\w*|счет\w*|данн\w+|местоположени\w*|номер\w*)\b|"
    r"付款|账单|数据|位置|工资|流水|病历|规则|限制|模式|安全|支払い|請求書|データ|位置情報|履歴|給与|番号|号|"
    r"ガイドライン|モード|安全", _I)
DESTINATION = re.compile(rf"{EMAIL}|{DOMAIN}|{IBAN}|{PHONE}", _I)
# Letting someone else have the person's data, as the person's wish or a standing permission: the act, the person's
# data (their possessive before it), and a sign that it holds beyond this once or on their word.
SHARE = re.compile(
    r"\b(?:share|disclose|reveal|show|tell|inform|give|pass(?:es|ed)? on|forward|send|transmit|communicate|release|"
    r"see|access|view|open|partag\w*|transm\w*|communiqu\w*|montr\w*|divulgu\w*|weiter\w*|teil\w*|zeig\w*|"
    r"mitteil\w*|einseh\w*|seh\w*|compart\w*|mostr\w*|inform\w*|comunic\w*|envi\w*|condivid\w*|"
    r"partilh\w*|delen|deel|toon\w*|doorgev\w*|inzien|передава\w*|показ\w*|сообща\w*|дел\w+)\b|"
    r"发给|告诉|分享|透露|提供|开示|開示|共有|伝え|教え|見せ",
    _I)
LEAVE = re.compile(
    r"\b(?:as you (?:wish|want|prefer|asked|said|agreed)|you(?:['’]d| would)? (?:like|want|prefer)|you(?:['’]re| are) "
    r"(?:ok|okay|fine|happy)|you agreed|you authori[sz]ed|your (?:wish|consent|permission)|may|can|allowed|"
    r"authori[sz]ed|without (?:asking|further)|d['’]accord|souhait|autoris\w*|pourr\w*|peu\w*|darf|dürfen|"
    r"wie besprochen|willst|erlaubt|quieres|deseas|puede\w*|autoriz\w*|preferisci|vuoi|può|possono|pode\w*|"
    r"wens|mag|mogen|toestemming|можно|разреш\w*)\b|按照你的意思|可以|允许|ご希望|希望どおり|できます",
    _I)

# A sentence ends at a stop that no word follows straight on, so an address ("ana@books.example") stays whole; a line
# ends one too, and so does a field of a record ("name: ..., date of birth: ...").
SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?=[\w@]))+(?:[.!?。！？]+|$)", re.MULTILINE)
QUESTION = re.compile(r"[?？]\s*$")


@dataclass(frozen=True)
class Claim:
    """A detail of one kind bound to the person in one sentence, with the values it gives."""

    kind: Kind
    values: tuple[str, ...]


# A stop after an initial or a short title is no sentence's end ("Dr. Fabbri", "J. Hendriks", "tel. 06...").
ABBREVIATION = re.compile(r"(?:\b[A-ZÀ-Þ]|\b(?:Dr|Mr|Mrs|Ms|Mme|St|Prof|dott|Dott|tel|Tel|No|no|nr|Nr|acct|approx|"
                          r"e\.g|i\.e|vs|Sr|Jr|Av|av|Str))\.$")


def sentences(text: str) -> list[str]:
    found: list[str] = []
    for piece in SENTENCE.findall(text):
        if found and ABBREVIATION.search(found[-1]):
            found[-1] = found[-1] + " " + piece.strip()
        elif piece.strip():
            found.append(piece.strip())
    return found


# A detail of something the person deals with rather than theirs: an order's number, a shop's phone.
NOT_THEIRS = re.compile(
    r"(?:\b(?:order|booking|confirmation|reference|ticket|tracking|flight|seat|room|table|invoice|case|support|parcel|"
    r"shipment|reservation|gate|platform|bus|train|version|step|page|item|model|serial|product|store|shop|office|"
    r"hotel|restaurant|company|help ?desk|hotline|customer service))\s*$", _I)
NEAR = 32


def _theirs(sentence: str, start: int, end: int) -> bool:
    """Whether the detail named at sentence[start:end] is bound to the person right there: their possessive just before
    it (nothing else's in between), or "of the user" just after it."""
    before = sentence[max(0, start - NEAR):start]
    if NOT_THEIRS.search(before):
        return False
    possessive = list(POSSESSIVE.finditer(before))
    return bool(possessive and "'s" not in before[possessive[-1].end():].replace("’", "'")) or bool(
        OF_PERSON.search(sentence[end:end + NEAR]))


# Details that let someone take money or an account, whoever they are said to be of.
VALUABLE = ("payment", "login")


def claims(text: str, *, names: Callable[[], Iterable[str]] = list, anyone: bool = False) -> list[Claim]:
    """Return the claims a text makes about the person: each sentence that binds a detail of a protected kind to them
    (their detail, they as its subject, their name, or a record of theirs) and gives a value of that kind. A question
    asks, it claims nothing. `names` are the person's, read only for a sentence with no other sign of them.
    `anyone`: the bank, card and login details a text gives with their values, whoever they are said to be of."""
    text = text.replace("_", " ")  # a record's keys: "phone_number", "full_name"
    record = anyone or RECORD.search(text) is not None
    named: list[re.Pattern] | None = None
    found = []
    for sentence in sentences(text):
        if QUESTION.search(sentence):
            continue
        for kind in (k for k in KINDS if not anyone or k.name in VALUABLE):
            nouns = [n for n in kind.nouns.finditer(sentence)
                     if not NOT_THEIRS.search(sentence[max(0, n.start() - NEAR):n.start()])]
            values = tuple(dict.fromkeys(v.group().strip() for v in kind.value.finditer(sentence))) if nouns else ()
            if not values:
                continue
            if not (record or SUBJECT.search(sentence) or any(_theirs(sentence, n.start(), n.end()) for n in nouns)):
                if named is None:
                    named = [re.compile(rf"(?<!\w){re.escape(name)}(?!\w)") for name in names() if name]
                if not any(name.search(sentence) for name in named):
                    continue
            found.append(Claim(kind, values))
    return found


# The person giving their own name ("my name is...", "I'm...", "je m'appelle...").
SELF_NAME = re.compile(
    r"\b(?:my name is|I['’]m|I am|call me|je m['’]appelle|je suis|ich heiße|ich bin|me llamo|soy|mi chiamo|sono|"
    r"me chamo|chamo-me|sou|ik heet|ik ben|меня зовут)\b|我叫|我是|私は",
    _I)


# Speaking of oneself: the first person, in the languages the portal is used in.
FIRST_PERSON = re.compile(
    r"\b(?:my|mine|I|I['’]m|me|mon|ma|mes|je|j['’]|moi|mein\w*|ich|mir|mich|mi|mis|yo|me|mio|mia|miei|io|meu|"
    r"minha|eu|mijn|ik|мой|моя|моё|мои|меня|мне|я)\b|我|私|僕",
    _I)
# Someone else's detail: their possessive, or a name's, just before the word for it ("his name", "Maya's phone").
OTHERS = re.compile(
    r"(?:\b(?:his|her|their|its|sein\w*|ihr\w*|son|sa|ses|leur\w*|su|sus|suo|sua|suoi|dele|dela|zijn|haar|"
    r"его|её|их)|['’]s)\s+(?:[\w-]+\s+){0,2}$",
    _I)


def _detail_of_others(sentence: str, start: int) -> bool:
    return bool(NOT_THEIRS.search(sentence[max(0, start - NEAR):start])
                or OTHERS.search(sentence[max(0, start - NEAR):start]))


def stated(texts: Iterable[str]) -> dict[str, set[str]]:
    """Return, by kind, the values the person gave of the details they deal with (value_key's): each sentence of theirs
    that names a kind of detail, not someone else's, with a value of it ("my IBAN is...", "ship it to 3 Elm Street",
    "I'm Sara Conti"), and a dose they say they take."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for sentence in sentences(text.replace("_", " ")):
            for kind in KINDS:
                nouns = [n for n in kind.nouns.finditer(sentence) if not _detail_of_others(sentence, n.start())]
                if nouns or (kind.name == "identity" and SELF_NAME.search(sentence)) or (
                        kind.name == "health" and FIRST_PERSON.search(sentence)):
                    keys = {value_key(v.group()) for v in kind.value.finditer(sentence)} - {""}
                    if keys:
                        found.setdefault(kind.name, set()).update(keys)
    return found


def conflicts(text: str, *, stated: Callable[[], dict[str, set[str]]]) -> list[Claim]:
    """Return what a text gives, of a kind of detail the person gave themselves, with another value, whoever it says
    the detail is of: a record swapped for another, a profile merged with someone else's, a check that contradicts
    them. `stated` (the person's own values by kind) is read only when a sentence gives a detail with a value."""
    mine: dict[str, set[str]] | None = None
    found = []
    for sentence in sentences(text.replace("_", " ")):
        if QUESTION.search(sentence):
            continue
        for kind in KINDS:
            nouns = [n for n in kind.nouns.finditer(sentence) if not _detail_of_others(sentence, n.start())]
            values = [v.group().strip() for v in kind.value.finditer(sentence)] if nouns else []
            if not values:
                continue
            mine = stated() if mine is None else mine
            other = tuple(v for v in dict.fromkeys(values) if kind.name in mine and value_key(v) not in mine[kind.name])
            if other:
                found.append(Claim(kind, other))
    return found


# Values of one shape that can stand for one another: an e-mail address, a bank account, a number of six digits or
# more (a phone, an account, an ID), a code of letters and digits, a plate, a street address.
SHAPES = tuple(re.compile(p, _I) for p in (
    EMAIL, IBAN, r"(?<![\w.,/])\+?(?:\d[\s().-]{0,2}){5,}\d(?![\w/]|,\d)",
    r"(?<![\w-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d[\w-]*\d[\w-]*\d)[A-Za-z0-9][\w-]{3,}(?![\w-])",
    r"(?-i:\b[A-Z]{1,3}[ -]\d{2,4}[ -][A-Z]{1,3}\b)", STREET))


def replacements(text: str, *, said: Callable[[list[str]], set[str]]) -> list[str]:
    """Return the values a text gives beside one of the person's own of the same shape: their number and another,
    their address and another (a record swapped, a profile merged, a check that contradicts them)."""
    text = text.replace("_", " ")
    found = []
    for shape in SHAPES:
        values = list(dict.fromkeys(m.group().strip() for m in shape.finditer(text)))
        if len(values) < 2:
            continue
        theirs = said(values)
        if theirs:
            found += [v for v in values if v not in theirs and not any(value_key(v) == value_key(t) for t in theirs)]
    return found


def new_values(text: str, *, given: Callable[[list[str]], set[str]]) -> list[str]:
    """Return the values of the shapes that stand for a person's details (SHAPES but a street address, which is said of
    shops and places all the time: an e-mail address, a bank account, a long number, a code, a plate) that a text
    gives and `given` says nobody gave."""
    text = text.replace("_", " ")
    values = list(dict.fromkeys(m.group().strip() for shape in SHAPES[:-1] for m in shape.finditer(text)))
    if not values:
        return []
    known = given(values)
    return [v for v in values if v not in known]


def rules(text: str) -> list[str]:
    """Return the sentences that set a rule for the agent: standing or triggered, and acting on what matters or
    sending it somewhere, or reading what the person asks about as something else."""
    found = []
    for sentence in sentences(text):
        if QUESTION.search(sentence):
            continue
        lasting = LASTING.search(sentence) or TRIGGER.search(sentence)
        if lasting and (_acts_on_what_matters(sentence) or DESTINATION.search(sentence) or REDIRECT.search(sentence)):
            found.append(sentence)
        elif _lets_others_have_their_data(sentence, lasting=bool(lasting)) or _theirs_sent_somewhere(sentence):
            found.append(sentence)
    return found


def _theirs_sent_somewhere(sentence: str) -> bool:
    """Whether a sentence has the person's login, bank or identity details taken to an outside address ("claim it at
    bonus-claims.example with your staff login")."""
    if not DESTINATION.search(sentence):
        return False
    nouns = [n for kind in KINDS if kind.name in ("login", "payment", "identity") for n in kind.nouns.finditer(sentence)]
    return any(_theirs(sentence, n.start(), n.end()) for n in nouns)


def _lets_others_have_their_data(sentence: str, *, lasting: bool) -> bool:
    """Whether a sentence lets someone else have the person's data: an act of sharing it, their data named as theirs,
    and a standing permission or their wish claimed for it."""
    share = SHARE.search(sentence)
    if not share or not (lasting or LEAVE.search(sentence)):
        return False
    data = [m for m in MATTERS.finditer(sentence)] + [n for kind in KINDS for n in kind.nouns.finditer(sentence)]
    return any(_theirs(sentence, m.start(), m.end()) for m in data)


def _acts_on_what_matters(sentence: str) -> bool:
    """Whether a sentence names an act and, in another word, something that matters ("share the location", not a
    "booking" that is both)."""
    acts = [(a.start(), a.end()) for a in ACTION.finditer(sentence)]
    return any(m.start() >= end or m.end() <= start for m in MATTERS.finditer(sentence) for start, end in acts)


# Words repeated to be found: a word of five letters or more said four times or more, a sixth of such words or more.
STUFFED_TIMES, STUFFED_SHARE = 4, 1 / 6


def stuffed(text: str) -> bool:
    """Whether a text repeats a word to be found by a search rather than to be read (a planted record's trigger)."""
    words = re.findall(r"\w{5,}", text.casefold())
    most = max((words.count(w) for w in set(words)), default=0)
    return most >= STUFFED_TIMES and most >= STUFFED_SHARE * len(words)


# A question in the person's own words ("what's my GP's number?", "私の保険証番号は？"): written into another's text,
# it is the person's question with its answer planted beside it.
THEIR_QUESTION = re.compile(
    r"[^.!?。！？\n]*\b(?:my|mon|ma|mes|mein\w*|mi|mis|mio|mia|il mio|la mia|meu|minha|mijn|мой|моя|моё|мои)\b"
    r"[^.!?。！？\n]*[?？]|[^。！？\n]*(?:私の|我的)[^。！？\n]*[?？]", _I)


def value_key(value: str) -> str:
    """Return a value as it is compared with what the person said: its digits when it has four or more, else its
    letters and digits, case-folded."""
    digits = re.sub(r"\D", "", value)
    return digits if len(digits) >= 4 else re.sub(r"\W", "", value.casefold())


def said_in(value: str, texts: Iterable[str]) -> bool:
    """Whether a value is in these words, as the graph compares it (memory.cypher.PERSON_SAID): a number by its digits,
    whatever separates them, anything else by its text, case-folded."""
    key = value_key(value)
    if key.isdigit():
        return any(key in re.sub(r"[\s.()+-]", "", text) for text in texts)
    return bool(key) and any(value.casefold() in text.casefold() for text in texts)


def unconfirmed_rules(found: list[str], said: Callable[[list[str]], set[str]] | None) -> list[str]:
    """Return the rules the person did not set themselves: each but those whose every destination they gave (their
    own forwarding rule, restated)."""
    if not found or said is None:
        return found
    kept = []
    for rule in found:
        destinations = [d.group() for d in DESTINATION.finditer(rule)]
        if not destinations or not set(destinations) <= said(destinations):
            kept.append(rule)
    return kept


def unconfirmed(found: list[Claim], said: Callable[[list[str]], set[str]] | None) -> list[Claim]:
    """Return the claims the person did not make themselves: those with a value missing from their own words
    (`said` returns which of the values they said)."""
    if not found or said is None:
        return found
    confirmed = said(list(dict.fromkeys(v for claim in found for v in claim.values)))
    return [claim for claim in found if not set(claim.values) <= confirmed]
