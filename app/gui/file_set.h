#pragma once
// Model files picked or dropped together (a ComfyUI set: flux1-dev.safetensors, ae.safetensors,
// clip_l.safetensors, t5xxl_fp16.safetensors) sorted into the model and the files that complete
// it, by what each file holds rather than by its name: the file with a denoiser (transformer or
// UNet) is the model, the others give the VAE and the text encoders, as `generate --model FILE
// --vae FILE --text-encoder FILE --text-encoder-2 FILE` takes them. Engine side (it maps each
// file and converts its keys, without reading the weights): call it on the worker thread.
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVector>

#include "records/run_types.h"

struct FileSet {
    Q_DECLARE_TR_FUNCTIONS(FileSet)

public:
    QString model;        // the file holding the denoiser
    hs::ModelFiles with;  // the rest; tokenizers are found beside the files at load
    QString error;        // why the files do not make a model, in plain words; empty when they do
    bool ok() const { return error.isEmpty(); }
};

FileSet sortModelFiles(const QStringList& paths);

// A file of a model with its part: "model" (the file or folder opened), "vae", "text_encoder",
// "text_encoder_2", "tokenizer", "tokenizer_2". What the model panel lists for a file set.
struct FileRole {
    QString role;
    QString path;
};
// Empty for a model without companion files (a pipeline folder, a lone checkpoint).
QVector<FileRole> fileRoles(const QString& model, const hs::ModelFiles& with);
