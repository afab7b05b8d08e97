#include "gui_advice.h"

#include <QRegularExpression>

#include "records/run_types.h"

namespace {

// "with --tokenizer-2 DIR" (the option, then its argument's placeholder), "--vae" alone in a list
// of options. The lookahead keeps "--tokenizer" from matching the start of "--tokenizer-2".
QRegularExpression optionPattern(const QString& option) {
    return QRegularExpression(QStringLiteral("(with )?%1(?![\\w-])( DIR| FILE)?")
                                  .arg(QRegularExpression::escape(option)));
}

// Replaces `option` in `text` by the part it gives; true when it was there.
bool replaceOption(QString& text, const QString& option, const QString& part) {
    const QRegularExpression pattern = optionPattern(option);
    if (!text.contains(pattern)) return false;
    QString out;
    qsizetype last = 0;
    for (auto it = pattern.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        out +=
            (m.capturedLength(1) > 0 ? QStringLiteral("as the ") : QStringLiteral("the ")) + part;
        last = m.capturedEnd();
    }
    text = out + text.mid(last);
    // "was given with --vae as the VAE" reads "as the VAE" once.
    const QString twice = QStringLiteral("as the %1 as the %1").arg(part);
    text.replace(twice, QStringLiteral("as the ") + part);
    return true;
}

}  // namespace

bool GuiAdvice::tokenizer() const {
    for (const QString& p : parts)
        if (const auto* row = hs::modelFileSlot(p.toStdString()); row && row->tokenizer)
            return true;
    return false;
}

QString guiPartNames(const QString& engineLine) {
    QString line = engineLine;
    for (const hs::ModelFileSlot& row : hs::modelFileSlots())
        line.replace(QStringLiteral("(%1)").arg(QString::fromLatin1(row.option)),
                     QStringLiteral("(%1)").arg(QString::fromLatin1(row.what)));
    return line.replace(QStringLiteral("(--model)"), QStringLiteral("(model)"));
}

GuiAdvice guiLoadAdvice(const QString& engineMessage) {
    GuiAdvice a;
    a.text = engineMessage;
    // The engine's words stay in the engine's language: the parts are the table's own names.
    QStringList weightParts, tokenizerFolders;
    for (const hs::ModelFileSlot& row : hs::modelFileSlots()) {
        if (!replaceOption(a.text, QString::fromLatin1(row.option), QString::fromLatin1(row.what)))
            continue;
        a.parts << QString::fromLatin1(row.slot);
        if (row.tokenizer)
            tokenizerFolders << QStringLiteral("\u201c%1\u201d").arg(QString::fromLatin1(row.slot));
        else
            weightParts << QString::fromLatin1(row.slot);
    }
    const bool model =
        replaceOption(a.text, QStringLiteral("--model"), QStringLiteral("model file"));
    if (a.parts.isEmpty() && !model) return a;
    QStringList ways;
    if (!weightParts.isEmpty() || model)
        ways << GuiAdvice::tr(
            "In the studio, choose the missing file with the button below, or open the model "
            "file and its parts together: File > Open model files\u2026 takes the model, its VAE "
            "and its text encoders at once, and File > Model library\u2026 picks a whole set.");
    if (!tokenizerFolders.isEmpty())
        //: %1: the folder names a tokenizer is looked for under ("tokenizer", "tokenizer_2").
        ways << GuiAdvice::tr(
                    "In the studio, choose the tokenizer's folder with the button below, or put "
                    "its folder, named %1, beside the model file or beside its text encoder's file "
                    "and open the model again. Where Halfscope bundles the tokenizer (CLIP-L), it "
                    "is used when "
                    "none is there. File > Model library\u2026 names what a set lacks before it "
                    "opens.")
                    .arg(tokenizerFolders.join(GuiAdvice::tr(" or ")));
    a.text = a.text.trimmed();
    if (!a.text.endsWith(QLatin1Char('.'))) a.text += QLatin1Char('.');  // the engine's sentence
    a.text += QLatin1Char(' ') + ways.join(QLatin1Char(' '));
    return a;
}
