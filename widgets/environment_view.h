#pragma once
// Shows what the machine can run (LibTorch build, CPU features, devices) as a read-only table.
#include <QString>
#include <QVector>
#include <QWidget>

class QTreeWidget;

struct EnvironmentRow {
    QString key;
    QString value;
};

class EnvironmentView : public QWidget {
    Q_OBJECT
public:
    explicit EnvironmentView(QWidget* parent = nullptr);
    void setRows(const QVector<EnvironmentRow>& rows);
    int rowCount() const;

private:
    QTreeWidget* m_tree;
};
