"""Where a statement came from, and what text from an untrusted source may not do to memory.

Each statement keeps its source: the person's own turn, the assistant, a named tool, a system turn,
the agent's explicit fields, a correction, an import. The person, a correction and an import are
trusted; the rest are the agent and what it read, and may be wrong or hostile (indirect prompt
injection, planted records, an assistant speaking for the person).

Text from an untrusted source is read against the rules below, a table of broad signs in the languages the
portal is used in rather than of known attacks' phrases: one strong sign holds it, a sign naming the agent
or its memory with one other, or three weak ones. Each says in plain words why it holds the text, for the
person who reviews it. The person's own turns are never held: what reads as a standing instruction from
them becomes one (`standing_instructions`).
"""

import re
from dataclasses import dataclass

PERSON, ASSISTANT, TOOL, SYSTEM, AGENT, CORRECTION, IMPORT = (
    "person", "assistant", "tool", "system", "agent", "correction", "import")
SOURCES = (PERSON, ASSISTANT, TOOL, SYSTEM, AGENT, CORRECTION, IMPORT)
TRUSTED = frozenset({PERSON, CORRECTION, IMPORT})
# A derived item takes the trust of its best support, in this order.
RANK = {CORRECTION: 0, PERSON: 1, IMPORT: 2, AGENT: 3, ASSISTANT: 4, SYSTEM: 5, TOOL: 6}
ROLE_SOURCES = {"user": PERSON, "assistant": ASSISTANT, "tool": TOOL, "system": SYSTEM}
# How a correction's maker is written (memory.services.corrections): an agent's own ("agent <id>") is the agent's
# word until the person accepts it ("agent <id>, accepted by the person").
CORRECTED_BY_AGENT = "agent "
ACCEPTED_BY = ", accepted by "


def correction_source(corrected_by: str) -> str:
    """Return whose word a correction is: the agent's, when it corrected on its own, else a correction's (the person,
    a reviewer, or an agent's proposal they accepted)."""
    own = corrected_by.startswith(CORRECTED_BY_AGENT) and ACCEPTED_BY not in corrected_by
    return AGENT if own else CORRECTION


def item_source(*, supports: list[str], corrected_by: str | None) -> str:
    """Return whose words a derived item is: the correction's that made it (`correction_source`), else its best
    support's source (RANK), from its statements' roles (or `agent` for the agent's explicit fields); none, an
    import."""
    if corrected_by:
        return correction_source(corrected_by)
    found = {ROLE_SOURCES.get(support, support) for support in supports}
    return min(found, key=RANK.__getitem__) if found else IMPORT


_I = re.IGNORECASE

# What may carry a detail somewhere else: an e-mail address, a web address or domain, an account number.
EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
DOMAIN = r"(?<![\w@.-])(?:https?://)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:[a-z]{2,})(?:/\S*)?(?![\w@-])"
IBAN = r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"
LONG_NUMBER = r"(?<![\w.,])\+?\d(?:[ -]?\d){6,18}(?![\w,])|\b\d{2}-\d{2}-\d{2}\b"
DESTINATION = rf"(?:{EMAIL}|{DOMAIN}|{IBAN})"
VALUE = rf"(?:{EMAIL}|{IBAN}|{LONG_NUMBER})"

# Addressing an AI rather than the person: "Note to AI systems:", "Assistant, please...", "if you are an AI".
AI = (r"(?:AI|A\.I\.|LLM|GPT|ChatGPT|Claude|Gemini|Copilot|Siri|Alexa|chatbot|language model|assistant|agent|bot|"
      r"KI|IA|asistente|assistente|assistent|ассистент|ИИ|助手|人工智能|アシスタント)")
ADDRESSED = [
    rf"\b(?:note|message|instructions?|reminder|memo|important|attention|notice)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|"
    rf"every\s+|your\s+)?(?:AI\s+)?{AI}s?\b",
    rf"\b(?:any|every|all)\s+(?:AI\s+)?(?:agents?|assistants?|models?|bots?)\s+(?:reading|processing|summari[sz]ing|seeing)\b",
    rf"\b(?:{AI}|models?|LLMs?)\s+(?:reading|processing|summari[sz]ing|seeing|parsing)\s+(?:this|these|the following)\b",
    rf"\bif you are an?\s+(?:AI|LLM|assistant|agent|language model|bot)\b",
    rf"^\W*{AI}\s*[,:]\s",
    rf"(?:^|[.!?]\s+|[\[(<]\s*)(?:hello|hi|dear)\s+{AI}\b",
    r"\bwhoever'?s\s+(?:AI\s+)?assistant\b",
    rf"\b(?:the\s+)?(?:AI\s+)?{AI}\s+of\s+(?:everyone|anyone|[A-Z][a-z]+)",
    r"\btell your (?:user|human|owner|principal)\b",
    rf"\b(?:hey|hi|hello|dear|attention|p\.?s\.?)\s*,?\s+(?:the\s+)?{AI}\b",
    rf"\b(?:for|to) (?:the|any|an?|every) {AI}s?\s+(?:reading|summari[sz]ing|processing|that reads|who reads)\b",
    r"\bwhen you (?:read|process|summari[sz]e|see) this\b",
    rf"\bthe {AI} (?:shall|must|should|is to|needs to|has to)\b",
    rf"\b{AI}s?\s+(?:memory|notes?|instructions?|directives?|rules?)\b|\(\s*{AI}\s*\)\s*:",
    r"\[\[?\s*system\s*\]?\]|<\s*/?\s*system\s*>|^\W*system\s*:",
    r"\bnew (?:directive|instructions|system prompt)\b|\byour (?:system prompt|instructions|notes|memory)\b",
    r"\bagents must\b",
    r"instruction pour l['’]assistant|\bà l['’]assistant\b|\bassistant(?:e)?\s+IA\b",
    r"\bKI-Assistent\w*|\ban den (?:KI-)?Assistenten\b|Hinweis an (?:die|den) KI\b",
    r"\b(?:al|para el|para la) (?:asistente|IA)\b",
    r"\b(?:all['’]|per l['’])assistente\b",
    r"\b(?:para|ao) o assistente\b|\bassistente de IA\b",
    r"\b(?:aan de|voor de) assistent\b",
    r"\b(?:ассистенту|для ИИ|для ассистента)\b",
    r"给\s*(?:AI)?\s*助手|致\s*(?:AI)?\s*助手|AI\s*助手",
    r"AI\s*アシスタントへ|アシスタントへ",
]

# Asking to be remembered, for good or for later.
REMEMBERED = [
    r"\b(?:update|add to|write (?:this |it )?(?:to|in)(?:to)?|save (?:this |it )?(?:to|in)|store (?:this |it )?(?:in|to))"
    r"\s+(?:your\s+|the\s+)?(?:long[- ]term\s+|permanent\s+)?memory\b",
    r"\bmemory (?:update|note|record|entry)\b|\[\s*(?:assistant\s+)?memory\b",
    r"\bremember (?:this|that|it)\s+(?:permanently|forever|for good|for (?:all\s+)?(?:future|later|next time|every))",
    r"\b(?:for|in) (?:all |every )?future (?:conversations?|sessions?|tasks?|chats?|answers?|requests?|interactions?)\b",
    r"\b(?:note|lesson|rule|reminder|reasoning step)s? (?:for|to remember for) (?:the )?(?:future|next time|later)",
    r"\bto remember for next time\b|\bstore it for next time\b|\bsave it for next time\b",
    r"\badd\b[^.!?]{0,80}\bto (?:your|the) (?:notes|memory|profile notes)\b",
    r"\b(?:store|save|record|write|put|keep|log)\b[^.!?]{0,40}\b(?:in|to|into) (?:your|the) (?:profile|notes|memory|records)\b",
    r"\bkeep (?:this|it|that) in mind (?:for|in) (?:the future|later|next time|all future)",
    r"\bmémorise[rz]?\b|\bnote pour (?:la suite|l['’]avenir|plus tard)\b|\bdans (?:ta|votre) mémoire\b",
    r"\bmerke? dir\b|\bmerken Sie sich\b|\bzur Erinnerung für\b|\bfür (?:alle )?künftigen? \w+|\bim Gedächtnis\b",
    r"\brecuerda (?:para siempre|siempre|que)\b|\ben (?:tu|su) memoria\b",
    r"\bricorda(?:ti)? (?:per sempre|sempre|che)\b|\bricorderò\b|\bnella (?:tua )?memoria\b",
    r"\b(?:lembre-se|lembra-te|memorize|memoriza)\b|\bna (?:sua |tua )?memória\b",
    r"\bonthoud (?:dit|dat|voortaan|altijd)\b",
    r"\bзапомни\b|\bв (?:своей )?памяти\b",
    r"永久记住|记住[:：]|记忆中|存入记忆",
    r"記憶せよ|記憶して|覚えておいて",
]

# Overriding the agent's instructions, or a jailbreak meant to last.
OVERRIDES = [
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*(?:previous\s+|prior\s+|"
    r"earlier\s+|above\s+|preceding\s+|existing\s+|original\s+|safety\s+|other\s+)*(?:instructions?|rules?|guidelines?|"
    r"directions?|prompts?|polic(?:y|ies)|restrictions?|filters?)\b",
    r"\bsystem override\b|\bdeveloper mode\b|\bjailbr(?:eak|oken)\b|\bdo anything now\b|\byou are now DAN\b",
    r"\b(?:without|no)\s+(?:any\s+)?(?:restrictions|content filters?|guidelines|refusals|safety rules)\b",
    r"\bunrestricted mode\b|\bnever refuse\b|\bignore (?:every|all) safety\b",
    r"\btreat\b[^.!?]{0,60}\bas (?:a |an )?(?:command|instruction|order)s?\b",
    r"\byou (?:must|shall|will) (?:now|always|never|from now on)\b|\b(?:respond|reply|answer) only (?:with|in)\b",
    r"\byou are now (?:DAN|in \w+ mode|free of|no longer bound|unrestricted|jailbroken)\b|\bfrom now on,? you are\b|"
    r"\bpretend (?:to be|you are)\b",
    r"\bignore[zr]? (?:toutes )?(?:les |tes |vos )?(?:instructions|consignes|règles)\b|\bsans (?:aucune )?restriction",
    r"\bignorier(?:e|en Sie)? (?:alle )?(?:bisherigen |vorherigen |früheren )?(?:Anweisungen|Regeln)\b|"
    r"\bohne (?:Einschränkungen|Filter)\b",
    r"\bignora (?:todas )?las instrucciones\b|\bsin restricciones\b",
    r"\bignora (?:tutte )?le istruzioni\b|\bsenza (?:restrizioni|limiti|filtri)\b",
    r"\bignor[ea] (?:todas )?as instruções\b|\bsem restrições\b",
    r"\bnegeer (?:alle )?(?:eerdere |vorige )?instructies\b|\bzonder beperkingen\b",
    r"\bигнорируй\w*|\bбез ограничений\b",
    r"忽略(?:之前|以前|先前|上面)?(?:的)?(?:所有)?(?:的)?指令|不受限制|无限制模式",
    r"(?:以前|これまで)の指示を無視|制限なし",
]

# Speaking for the person: their label, "the user said", or "correcting" what they said.
NOT_A_PERSON = r"(?! (?:guide|manual|interface|experience|base|group|forum|name)s?\b)"
PERSON_WORD = (rf"(?:the user{NOT_A_PERSON}|user{NOT_A_PERSON}|the person|the customer|the human|"
               r"the account holder|the reader|your (?:user|owner|human|principal)|der Kunde|el cliente|o cliente|"
               r"de klant|клиент|客户|お客様|l['’]utilisateur|der Nutzer|der Benutzer|"
               r"el usuario|l['’]utente|o usuário|o utilizador|de gebruiker|пользователь|用户|ユーザー)")
SAID = (r"(?:said|says|told|confirmed|wants|prefers|asked|authori[sz]es|likes|agreed|a dit|veut|préfère|autorise|"
        r"hat gesagt|sagt|möchte|will|dijo|quiere|prefiere|autoriza|ha detto|vuole|preferisce|disse|quer|prefere|"
        r"zei|wil|сказал|хочет|说|要求|希望|が言った)")
SPEAKS_FOR_PERSON = [
    r"^\W*(?:user|human|customer|client|the person|utilisateur|nutzer|benutzer|usuario|utente|usuário|gebruiker|"
    r"пользователь|用户|ユーザー)\s*\]?\s*[:：]",
    r"\[\s*(?:the\s+)?(?:person|user|customer)\s+said\s*\]",
    rf"{PERSON_WORD}\s+(?:is|was|has been)\s+(?:fine|ok|okay|happy|comfortable)\s+with\b",
    r"\bthe person you are (?:helping|assisting|talking to)\b",
    rf"{PERSON_WORD}\s+(?:\w+ly\s+|has\s+|had\s+|just\s+)*{SAID}\b",
    rf"\b(?:when|whenever|if|next time|every time|each time)\s+{PERSON_WORD}\s+(?:says|asks|mentions|talks|writes|uses)\b",
    r"\b(?:quand|lorsque|si) l['’]utilisateur\b|\bwenn der (?:Nutzer|Benutzer)\b|\bcuando el usuario\b|"
    r"\bquando (?:l['’]utente|o usuário)\b|\bals de gebruiker\b|\bкогда пользователь\b|当用户",
    r"\b(?:correction|correcting|corrección|correzione|correção|Korrektur|correctie|исправление)\b",
    r"\byou (?:said|told me|mentioned)\b[^.!?]{0,80}\b(?:but|actually|in fact|mistake|wrong|incorrect|not true)\b",
    r"\b(?:tu as dit|vous avez dit|du hast gesagt|Sie sagten|dijiste|has dicho|hai detto|você disse|je zei|"
    r"ты сказал|вы сказали)\b[^.!?]{0,80}\b(?:mais|en réalité|en fait|aber|eigentlich|pero|en realidad|ma|"
    r"in realtà|mas|na verdade|maar|eigenlijk|но|на самом деле)\b",
    r"\byour preference\b|\byou(?:'d| would)? (?:like|want|prefer|rather)\s+(?:that\s+)?(?:me|I)\s+(?:to\s+)?"
    r"(?:always|never|skip|automatically)|\bI['’]ve learned that you\b",
    r"\bla tua preferenza\b|\bta préférence\b|\bdeine Vorliebe\b|\btu preferencia\b|\bsua preferência\b",
]

# Details that let someone take over money, accounts or identity.
PAYMENT = (r"(?:\b(?:IBAN|bank (?:account|details)|account (?:number|no)|sort code|routing number|SWIFT|BIC|card|wallet|"
           r"refund account|payout|account\s+\d|compte|RIB|Konto\w*|Bankverbindung|cuenta|conto|conta|rekening|"
           r"сч[её]т\w*)\b|账户|账号|银行卡|口座)")
CREDENTIAL = (r"(?:\b(?:pass(?:word|code|phrase)s?|PIN|tokens?|API key|secret|two-factor|2FA|one-time code|verification code|"
              r"credentials?|login|mot de passe|identifiants|Passwort\w*|Kennwort|Zugangsdaten|contraseña|credenziali|"
              r"senha|wachtwoord|DigiD|парол\w*)\b|密码|验证码|パスワード)")
# A book or list of other people's contacts, a phone's case or charger: no detail of the person's.
CONTACT = (r"(?:\b(?!(?:address|phone|contact) (?:book|list|contacts|case|charger)\b)"
           r"(?:e-?mail|phone|mobile|number|address|contact|téléphone|adresse|courriel|Telefon\w*|Handy\w*|teléfono|"
           r"dirección|correo|telefono|indirizzo|telefone|endereço|telefoon\w*|adres|телефон\w*|адрес\w*)\b|"
           r"手机|电话|号码|地址|邮箱|電話|住所|メール)")
IDENTITY = (r"(?:\b(?:name|date of birth|birthday|born|passport|social security|nom|date de naissance|Geburtsdatum|nombre|"
            r"fecha de nacimiento|nome|naam|имя)\b|名字|姓名|生日|名前|生年月日)")
CHANGED = (r"(?:\b(?:new|now|outdated|no longer|changed|updated|set\b[^.!?]{0,40}\bto|replaced?|switched|actually|real|"
           r"verified|instead|nouve(?:au|lle)|désormais|changé|neue?[nrs]?|ab sofort|geändert|nuev[oa]|cambiad[oa]|"
           r"en realidad|nuov[oa]|cambiat[oa]|nov[oa]|alterad[oa]|nieuwe?|gewijzigd|нов\w+|измен\w+)\b|"
           r"已更改|更改为|改成|改为|新しい|変更)")

# Weak: a standing rule ("from now on", "always"), keeping it from the person, sending something elsewhere.
STANDING = [
    r"\b(?:from now on|going forward|henceforth|from this point on|from here on|permanently|forever|automatically|"
    r"whenever|every time|each time|next time|in the future|always|never|will now)\b",
    r"\b(?:à partir de maintenant|désormais|dorénavant|à l['’]avenir|toujours|automatiquement|ab jetzt|ab sofort|"
    r"künftig|in Zukunft|immer|niemals|automatisch|dauerhaft|a partir de ahora|de ahora en adelante|siempre|"
    r"para siempre|automáticamente|d['’]ora in poi|da ora in poi|in futuro|sempre|automaticamente|"
    r"de agora em diante|a partir de agora|vanaf nu|voortaan|altijd|отныне|впредь|с этого момента|всегда|навсегда)\b",
    r"从现在开始|以后|今后|永远|总是|永久|これからは|今後|常に|いつも",
    r"\beffective immediately\b|\bpolicy change\b|\bnew (?:rule|policy)\b|\bneue Regel\b|\bnouvelle règle\b|"
    r"\bnueva (?:regla|política)\b",
]
ASKS_TO_REMEMBER = [r"\bremember (?:this|that|it)\b|\bdon['’]t forget (?:this|that|it)\b"]
# Writing about the person in the third person, as text meant for their agent does.
ABOUT_PERSON = [rf"\b{PERSON_WORD}(?:['’]s)?\b"]
KEPT_FROM_PERSON = [
    r"\b(?:do not|don't|never)\s+(?:tell|mention|inform|alert|notify|show)\b",
    r"\bwithout (?:asking|telling|informing|notifying|confirmation|confirming|checking)\b",
    r"\b(?:skip|bypass)\s+(?:the\s+)?(?:user's\s+)?(?:confirmation|two-factor|2FA|verification)",
    r"\bnever ask\b[^.!?]{0,40}\bconfirm",
    r"\bne (?:lui|leur) en parle pas\b|\bsans (?:lui |leur )?(?:demander|le dire|confirmation)\b",
    r"\bohne (?:zu fragen|Rückfrage|Bestätigung)\b|\bnicht erwähnen\b",
    r"\bsin (?:preguntar|confirmación|avisar)\b|\bno (?:le|se lo) digas\b",
    r"\bsenza (?:chiedere|chiedertelo|chiederlo|conferma)\b",
    r"\bsem (?:perguntar|confirmação|avisar)\b",
    r"\bzonder (?:te |het te )?(?:vragen|bevestiging|melden)\b",
    r"\bбез подтверждения\b|\bне (?:говори|сообщай)\b",
    r"不要告诉|无需确认|不必确认|不要提及",
    r"確認(?:なし|せず)|伝えないで",
]
SEND = (r"(?:forward|send|sent|copy|cc|bcc|share|transfer|wire|pay|paid|route|upload|e-?mail\w*|book|reply|"
        r"envo\w*|transf[eé]r\w*|vers\w*|partag\w*|pay\w*|schick\w*|send\w*|leite\w*|überweis\w*|zahl\w*|"
        r"envi\w*|reenv\w*|pag\w*|compart\w*|invi\w*|inoltr\w*|condivid\w*|stuur\w*|betaal\w*|"
        r"отправ\w*|пересл\w*|перев\w*|发送|转发|转账|支付|经由|通过|送信|転送|経由|支払)")
SENDS_ELSEWHERE = [
    rf"\b{SEND}\b[^.!?\n]{{0,80}}{DESTINATION}",
    rf"{DESTINATION}[^.!?\n]{{0,20}}(?:经由|通过|経由|へ送|に送)",
]


# The agent and its memory named as such: what text meant for a model talks about.
META = [
    r"(?-i:\b(?:AI|A\.I\.|LLMs?|GPT\w*|ChatGPT|Claude|Gemini|Copilot|KI|IA|ИИ)\b)|\b(?:chatbots?|bots?|language models?)\b|"
    r"人工智能|(?-i:AI)(?=\s*[\u3040-\u30ff\u4e00-\u9fff])",
    r"\b(?<!teaching )(?<!shop )(?<!sales )(?<!research )(?<!personal )assistants?\b(?! (?:manager|coach|director|professor|editor))|"
    r"\b(?:asistente|assistente|assistent|ассистент)\w*|助手|アシスタント",
    r"\b(?:your|long-term|permanent) memory\b|\bmemory (?:note|update|record|entry|file)\b|\bsystem prompt\b|"
    r"\b(?:system|developer)s? (?:notice|message|note|update|instruction)s?\b|<\s*/?\s*(?:instructions?|system)\s*>|"
    r"\b(?:ta|votre) mémoire\b|\bdein\w* Gedächtnis\b|\btu memoria\b|\bsua memória\b|\bjouw geheugen\b|"
    r"\bтво\w* памят\w*|记忆|記憶",
]
# Telling the agent what to do: a modal before a verb of acting on memory or answers, or such a verb opening a clause.
ACT = (r"(?:record|save|store|remember|note|log|recommend|suggest|say|tell|send|forward|share|use|include|add|reply|"
       r"respond|answer|approve|skip|ignore|book|pay|transfer|update|set|change|treat|follow|mention|link|route|deliver)")
DIRECTIVE = [
    rf"\b(?:should|must|shall|need to|needs to|has to|have to|is to|are to)\s+(?:also\s+|always\s+|now\s+|never\s+|only\s+)?{ACT}\b",
    rf"(?:^|[.!?:;,>]\s*)(?:please\s+)?(?:(?:always|never|now)\s+)?{ACT}\b",
    r"\b(?:doit|doivent|devra|dois)\s+\w+|(?:^|[.!?:;]\s*|,\s*)(?:réponds|répondez|envoie|envoyez|transfère|transférez|"
    r"enregistre|enregistrez|recommande|recommandez|utilise|utilisez|ajoute|ajoutez|partage|partagez)\b",
    r"\b(?:soll|sollst|muss|musst|müssen)\b|\b(?:antworte|sende|schicke|leite|speichere|empfiehl|nutze|füge|gib)\b",
    r"\b(?:debe|deberá|deben|tiene que)\b|\b(?:responde|envía|reenvía|guarda|recomienda|añade|comparte)\b",
    r"\b(?:deve|dovrà|devono)\b|\b(?:rispondi|invia|inoltra|salva|consiglia|aggiungi|condividi)\b",
    r"\b(?:deverá|devem)\b|\b(?:responda|envie|encaminhe|guarde|salve|recomende|adicione|compartilhe)\b",
    r"\b(?:moet|moeten|dient)\b|\b(?:antwoord|stuur|bewaar|gebruik|voeg)\b",
    r"\b(?:должен|должна|должны|нужно|необходимо)\b|"
    r"\b(?:отвечай|отправь|отправляй|пересылай|сохрани|рекомендуй|используй)\b",
    r"必须|应该|务必|都要|一定要|附上|转发|推荐",
    r"すること|せよ|しなさい|してください",
]
# Details that matter if wrong: money, logins, contact, identity, or somewhere to send things.
SENSITIVE = [PAYMENT, CREDENTIAL, CONTACT, IDENTITY, DESTINATION]


@dataclass(frozen=True)
class Rule:
    reason: str
    weight: int
    pattern: re.Pattern


def _rule(reason: str, patterns: list[str], *, weight: int) -> Rule:
    return Rule(reason, weight, re.compile("|".join(f"(?:{p})" for p in patterns), _I | re.MULTILINE))


# A text is held when the weights of the rules it meets add up to HOLD: one strong rule, the agent named with
# one other rule, or three weak ones.
STRONG, NAMED, WEAK = 3, 2, 1
HOLD = 3
RULES = (
    _rule("speaks to an AI rather than to you", ADDRESSED, weight=STRONG),
    _rule("asks to be remembered", REMEMBERED, weight=STRONG),
    _rule("tries to override the assistant's instructions", OVERRIDES, weight=STRONG),
    _rule("speaks for you or corrects what you said", SPEAKS_FOR_PERSON, weight=STRONG),
    _rule("talks about the assistant or its memory", META, weight=NAMED),
    _rule("sets a standing rule", STANDING, weight=WEAK),
    _rule("tells the assistant what to do", DIRECTIVE, weight=WEAK),
    _rule("would keep something from you", KEPT_FROM_PERSON, weight=WEAK),
    _rule("asks to be kept in mind", ASKS_TO_REMEMBER, weight=WEAK),
    _rule("sends something to an outside address", SENDS_ELSEWHERE, weight=WEAK),
    _rule("writes about you to your assistant", ABOUT_PERSON, weight=WEAK),
    _rule("touches money, logins, contact or identity details", SENSITIVE, weight=WEAK),
)
# A sentence ends at a stop that no word follows straight on, so an address ("ana@books.example") stays whole.
SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?=[\w@]))+(?:[.!?。！？]+|$)")
_PAYMENT, _CREDENTIAL, _CONTACT, _IDENTITY, _CHANGED, _VALUE = (
    re.compile(p, _I) for p in (PAYMENT, CREDENTIAL, CONTACT, IDENTITY, CHANGED, VALUE))
_SECRET = re.compile(rf"{CREDENTIAL}\s*(?:is|was|:|=|est|ist|es|è|é|是|は)\s*['\"]?(?=\S*\d)\S{{3,}}", _I)
DETAILS = "states payment, login, contact or identity details"


def untrusted_reasons(text: str) -> list[str]:
    """Return why text from an untrusted source may not become memory as it stands; empty when it may."""
    met = [rule for rule in RULES if rule.pattern.search(text)]
    reasons = [rule.reason for rule in sorted(met, key=lambda rule: -rule.weight)]
    details = _details(text)
    if details:
        reasons.insert(0, DETAILS)
    weight = sum(rule.weight for rule in met) + (STRONG if details else 0)
    return reasons if weight >= HOLD else []


def _details(text: str) -> bool:
    """Whether a sentence states a payment or login detail with its value, or a changed contact or identity."""
    if _SECRET.search(text):
        return True
    for sentence in SENTENCE.findall(text):
        valued = _VALUE.search(sentence)
        if valued and (_PAYMENT.search(sentence) or _CREDENTIAL.search(sentence)):
            return True
        if (_CONTACT.search(sentence) or _IDENTITY.search(sentence)) and _CHANGED.search(sentence) and (
                valued or re.search(PERSON_WORD + r"|\byour\b|\bhis\b|\bher\b", sentence, _I)):
            return True
    return False


# What the person tells their assistant to do from now on: a standing rule and a request about serving them.
QUOTED = re.compile(r"[\"“”‘’«»「」『』][^\"“”‘’«»「」『』]{3,}[\"“”‘’«»「」『』]|(?<!\w)'[^']{3,}'(?!\w)")
LASTING = [
    *STANDING[:3],
    r"\bplease remember\b|\bremember to\b|\bdon['’]t forget to\b|\bkeep in mind\b",
]
SERVE_ME = [
    r"(?:^\s*|[,:;]\s*|\b(?:please|you(?:['’]ll| will| should| must| can))\s+)(?:(?:always|never)\s+)?(?:(?:answer|reply|respond|"
    r"write|talk|speak|explain)\s+(?:to\s+)?me\b|(?:call|address|remind|ask|notify|text|email|e-mail|message|wake|cc|"
    r"copy)\s+me\b|(?:use|forward|send|pay|book|route|cc|copy|include|put|file)\b[^.!?]{0,60}\b(?:my|me|mine)\b|"
    r"keep (?:answers?|replies|it) (?:short|brief)\b|(?:always|never)\s+(?:answer|reply|respond|write|"
    r"explain|format|summari[sz]e)\b)",
    r"\b(?:réponds|répondez)-moi\b|\b(?:appelle|rappelle|envoie|écris)-moi\b|\butilise (?:mon|ma|mes)\b|\btransfère mes\b",
    r"\b(?:antworte|antworten Sie|schreib|schick) mir\b|\bruf mich\b|\berinnere mich\b|\bnutze mein\w*|\bleite meine\b",
    r"\b(?:respóndeme|contéstame|escríbeme|llámame|recuérdame|envíame)\b|\busa mi\b|\breenvía mis\b",
    r"\b(?:rispondimi|scrivimi|chiamami|ricordami|inviami)\b|\busa il mio\b|\binoltra le mie\b",
    r"\b(?:responda-me|me responda|me chame|me lembre|me envie)\b|\buse (?:minha|meu)\b|\bencaminhe (?:meus|minhas)\b",
    r"\b(?:antwoord|schrijf|stuur) (?:mij|me)\b|\bbel me\b|\bherinner me\b|\bgebruik mijn\b",
    r"\b(?:отвечай|пиши|напоминай) мне\b|\bиспользуй мой\b",
    r"回复我|回答我|提醒我|称呼我|请用|用\w+回答|返事は|返信は|お願いします|と呼んで",
]
_LASTING = tuple(re.compile(p, _I) for p in LASTING)
_SERVE_ME = tuple(re.compile(p, _I) for p in SERVE_ME)


def standing_instructions(text: str) -> list[tuple[int, int]]:
    """Return where the person's own words set a rule for how their assistant serves them from now on: the span of
    each such sentence, in order.

    Words the person quotes ("a classic injection reads 'ignore all previous instructions'") are left out.
    """
    unquoted = QUOTED.sub(lambda quote: " " * len(quote.group()), text)
    return [sentence.span() for sentence in SENTENCE.finditer(unquoted)
            if any(p.search(sentence.group()) for p in _LASTING) and any(p.search(sentence.group()) for p in _SERVE_ME)]


# What an untrusted source may not write about the person without their approval: a fact of these kinds.
PROTECTED_PREDICATE = re.compile(
    r"(?:IBAN|ACCOUNT|CARD|BANK|PAYMENT|PAYOUT|WALLET|SORT_CODE|ROUTING|PASSWORD|PASSCODE|PIN|TOKEN|CREDENTIAL|LOGIN|"
    r"SECRET|EMAIL|PHONE|MOBILE|ADDRESS|CONTACT|RESIDES|LIVES|NAME|BORN|BIRTH|PASSPORT|IDENTITY|SSN|NATIONAL_ID)")
PERSON_SUBJECTS = frozenset({"user", "the user", "me", "i"})
# A preference that tells the assistant how to act rather than saying what the person likes.
ORDERS = re.compile(r"^\W*(?:always|never|do not|don't|end|start|begin|include|add|send|forward|reply|respond|answer|"
                    r"use|approve|skip|ignore|share|pay|book|recommend|mention|link|call|tell)\b", _I)
# The category of a preference that is the person's standing instruction (extraction files it there; the context
# serves it in a section of its own).
INSTRUCTION = "instruction"
STANDING_CATEGORIES = frozenset({"communication", INSTRUCTION})
STANDING_ADDED = "adds a standing instruction"


def held_reasons(texts: list[str | None]) -> list[str] | None:
    """Return why words from an untrusted source are held out of recall (every text's reasons, once each), or None.

    Stored with what they are read from (a message at its append, a trace at its completion), so the flag never
    depends on when it is read.
    """
    reasons = [reason for text in texts if text for reason in untrusted_reasons(text)]
    return list(dict.fromkeys(reasons)) or None


def fact_reasons(*, subject: str, predicate: str, object: str) -> list[str]:
    """Return why a fact from an untrusted source waits for the person's approval; empty when it may apply."""
    reasons = untrusted_reasons(f"{subject} {predicate.replace('_', ' ').lower()} {object}")
    if subject.strip().lower() in PERSON_SUBJECTS and PROTECTED_PREDICATE.search(predicate):
        reasons = [DETAILS, *reasons]
    return list(dict.fromkeys(reasons))


def preference_reasons(*, category: str, preference: str) -> list[str]:
    """Return why a preference from an untrusted source waits for approval: one about how every answer is
    given, or worded as an order, is a standing instruction."""
    reasons = untrusted_reasons(preference)
    if category.strip().lower() in STANDING_CATEGORIES or ORDERS.search(preference) or re.search(DESTINATION, preference):
        reasons = [STANDING_ADDED, *reasons]
    return list(dict.fromkeys(reasons))
