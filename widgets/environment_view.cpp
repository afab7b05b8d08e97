#include "environment_view.h"

#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

EnvironmentView::EnvironmentView(QWidget* parent) : QWidget(parent), m_tree(new QTreeWidget(this)) {
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Property"), tr("Value")});
    m_tree->setRootIsDecorated(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
}

void EnvironmentView::setRows(const QVector<EnvironmentRow>& rows) {
    m_tree->clear();
    for (const auto& r : rows) new QTreeWidgetItem(m_tree, {r.key, r.value});
}

int EnvironmentView::rowCount() const { return m_tree->topLevelItemCount(); }
