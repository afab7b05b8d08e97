#pragma once
// The folders the user added to the model library, by kind (the Hugging Face cache is found, not
// added): what the library panel edits and the studio's settings keep.
#include <QStringList>

struct LibrarySources {
    QStringList comfyui, a1111, user;
    bool operator==(const LibrarySources& o) const {
        return comfyui == o.comfyui && a1111 == o.a1111 && user == o.user;
    }
};
