"""The signs that text is meant for a model rather than for the person: it speaks to an AI, asks to be remembered,
overrides the agent's instructions, speaks for the person, talks about the agent or its memory, sets a standing rule,
tells the agent what to do, keeps something from the person, sends something to an outside address, writes about
the person to their agent, or touches money, logins, contact or identity details. Broad signs in the languages the
portal is used in, each weighed with the others by memory.trust.WEIGHTS.
"""

import re

from memory.trust.claims import DOMAIN, EMAIL, IBAN

_I = re.IGNORECASE

# What may carry a detail somewhere else: an e-mail address, a web address or domain, an account number.
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
    r"\b(?:ассистенту|для ИИ|для ассистента|помощник\w*)\b",
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
    r"\bsystem override\b|\bdeveloper mode\b|\bрежим\w* разработчика\b|\bmodo (?:de )?desarroll\w*|"
    r"\bmode développeur\b|\bEntwicklermodus\b|\bmodalità sviluppatore\b|\bmodo (?:de )?desenvolvedor\b|"
    r"\bontwikkelaarsmodus\b|开发者模式|開発者モード|\bjailbr(?:eak|oken)\b|\bdo anything now\b|\byou are now DAN\b",
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
    r"^\W*(?:you|user|human|customer|client|the person|utilisateur|nutzer|benutzer|usuario|utente|usuário|gebruiker|"
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
