// main() of the run history storage tests: a QCoreApplication (no widgets, no display) around
// GoogleTest; the names match the widget tests' so QStandardPaths resolves the same folders.
#include <gtest/gtest.h>

#include <QCoreApplication>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName("HalfscopeTests");
    QCoreApplication::setApplicationName("halfscope-tests");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
