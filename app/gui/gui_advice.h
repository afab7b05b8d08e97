#pragma once
// The engine's load errors speak to the command line: a part of a model it lacks is to be given
// "with --tokenizer DIR" or "with --text-encoder-2 FILE" (hs::modelFileSlots()' options). The
// studio has no options. guiLoadAdvice() turns such a message into what the studio offers: each
// option becomes the part it names ("as the first tokenizer"), and a sentence per kind of part
// says how the studio takes it (weights: opened together with the model file, or a set from the
// model library; tokenizers: a folder beside the files, the bundled one, the library's set
// picker). Messages that name no option come back unchanged.
#include <QCoreApplication>
#include <QString>
#include <QStringList>

struct GuiAdvice {
    Q_DECLARE_TR_FUNCTIONS(GuiAdvice)

public:
    QString text;            // the message, no option left in it, with the studio's ways appended
    QStringList parts;       // the slots the message named ("tokenizer", "vae"), in table order
    bool tokenizer() const;  // one of `parts` is a tokenizer folder
};

GuiAdvice guiLoadAdvice(const QString& engineMessage);

// A line of what a load detected, "PATH (--vae): component folder, ...", with each option in
// brackets named as its part: "PATH (VAE): component folder, ...".
QString guiPartNames(const QString& engineLine);
