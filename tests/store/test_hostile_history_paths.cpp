// Image paths in the run history database come from a file that other programs can write (or that
// was copied from elsewhere): one that points outside the data folder is never read nor removed,
// and the run still loads, with a message. A FIFO in place of an image does not hang a load.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <chrono>

#include "history_images.h"
#include "history_test_records.h"
#include "run_history.h"

namespace {

// Runs one UPDATE on the history's database through a connection of its own.
void execSql(const QString& dbPath, const QString& sql) {
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "hostile-paths");
        db.setDatabaseName(dbPath);
        ASSERT_TRUE(db.open());
        QSqlQuery q(db);
        ASSERT_TRUE(q.exec(sql)) << sql.toStdString();
        q.finish();
        db.close();
    }
    QSqlDatabase::removeDatabase("hostile-paths");
}

// A data folder inside `root`, one run with one step preview, and a copy of that preview's PNG
// outside the data folder (so a load that followed the path would succeed in reading it).
struct Fixture {
    QTemporaryDir root;
    QString data = root.path() + "/data";
    RunHistory h{data};
    qint64 id = 0;
    QString imageRel;

    Fixture() {
        id = h.beginRun(testrec::config("fox"), "transformer=fp16", testrec::components());
        EXPECT_GT(id, 0) << h.errorString().toStdString();
        EXPECT_TRUE(h.addPreview(id, testrec::preview(12, 8, 0, false)))
            << h.errorString().toStdString();
        const QStringList files = QDir(h.imageDir(id)).entryList(QDir::Files);
        EXPECT_EQ(files.size(), 1);
        imageRel = QString("images/%1/%2").arg(id).arg(files.value(0));
        EXPECT_TRUE(QFile::copy(data + "/" + imageRel, root.path() + "/outside.png"));
    }
    void setImagePath(const QString& stored) {
        QString quoted = stored;
        quoted.replace("'", "''");
        execSql(
            h.databasePath(),
            QString("UPDATE previews SET image_path = '%1' WHERE run_id = %2").arg(quoted).arg(id));
    }
};

}  // namespace

TEST(HostileHistoryPaths, DataFilePathAcceptsOnlyPlainRelativePaths) {
    using history::dataFilePath;
    EXPECT_EQ(dataFilePath("/d", "images/3/a.png"), "/d/images/3/a.png");
    EXPECT_EQ(dataFilePath("/d", "images/3/..a.png"), "/d/images/3/..a.png");  // a name, not ".."
    for (const char* bad :
         {"", "/etc/passwd", "../x.png", "images/../../x.png", "images/..", "C:/x.png", "c:x.png",
          "\\\\server\\x.png", "images\\..\\..\\x.png", "images/3/a.png\n", "images/\x01/a.png"})
        EXPECT_TRUE(dataFilePath("/d", bad).isEmpty()) << bad;
}

TEST(HostileHistoryPaths, ImagePathsOutsideTheDataFolderAreNotRead) {
    Fixture f;
    {
        const auto back = f.h.load(f.id);  // as written: the preview comes back
        ASSERT_TRUE(back);
        EXPECT_EQ(back->previews.size(), 1u) << f.h.errorString().toStdString();
    }
    for (const QString& stored : {QString("../outside.png"), f.root.path() + "/outside.png",
                                  QString("images/../../outside.png")}) {
        SCOPED_TRACE(stored.toStdString());
        f.setImagePath(stored);
        const auto back = f.h.load(f.id);
        ASSERT_TRUE(back) << f.h.errorString().toStdString();  // the run itself loads
        EXPECT_TRUE(back->previews.empty());  // without the image, never read from outside
        EXPECT_TRUE(f.h.errorString().contains("not inside the history's data folder"))
            << f.h.errorString().toStdString();
    }
}

TEST(HostileHistoryPaths, ReplacingAFinalImageNeverRemovesAFileOutside) {
    Fixture f;
    ASSERT_TRUE(f.h.addPreview(f.id, testrec::preview(12, 8, -1, false)));  // the final image
    const QString victim = f.root.path() + "/victim.png";
    ASSERT_TRUE(QFile::copy(f.root.path() + "/outside.png", victim));
    execSql(f.h.databasePath(),
            QString("UPDATE previews SET image_path = '../victim.png' WHERE kind = 'final'"));
    // A new final image drops the old row and removes its files: not this one.
    ASSERT_TRUE(f.h.addPreview(f.id, testrec::preview(12, 8, -1, false)))
        << f.h.errorString().toStdString();
    EXPECT_TRUE(QFile::exists(victim));
    // Same through finishRun, which replaces the final and saved images.
    execSql(f.h.databasePath(),
            QString("UPDATE previews SET image_path = '%1' WHERE kind = 'final'").arg(victim));
    ASSERT_TRUE(f.h.finishRun(f.id, testrec::outcome(testrec::config("fox"), 1)))
        << f.h.errorString().toStdString();
    EXPECT_TRUE(QFile::exists(victim));
}

TEST(HostileHistoryPaths, AFifoInPlaceOfAnImageDoesNotHang) {
    Fixture f;
    const QString fifo = f.data + "/" + f.imageRel;
    ASSERT_TRUE(QFile::remove(fifo));
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    const auto back = f.h.load(f.id);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->previews.empty());
    EXPECT_TRUE(f.h.errorString().contains("not a regular file"))
        << f.h.errorString().toStdString();
}
