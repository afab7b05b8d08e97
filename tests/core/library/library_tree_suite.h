#pragma once
// A test suite over one library tree (library_tree.h), written once before its tests under a
// scoped temporary folder and removed after them.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../single_file_helpers.h"
#include "library_tree.h"

namespace hs::test {

class LibraryTreeSuite : public ::testing::Test {
protected:
    // The tree under <a temporary folder tagged `tag`>/`sub`; a suite's SetUpTestSuite calls it.
    static void writeTree(const std::string& tag, const std::string& sub = "") {
        s_dir = std::make_unique<ScopedDir>(tag);
        s_tree = std::make_unique<LibraryTree>(writeLibraryTree(s_dir->path + sub));
    }
    static void TearDownTestSuite() {
        s_tree.reset();
        s_dir.reset();
    }
    static inline std::unique_ptr<ScopedDir> s_dir;
    static inline std::unique_ptr<LibraryTree> s_tree;
};

}  // namespace hs::test
