<?xml version="1.0" encoding="UTF-8"?>
<!-- The sitemap index and files as a page a person can read (a browser applies it; crawlers
     read the XML): a table of the addresses and their last change. Its look is
     /assets/css/sitemap.css (the site's policy allows no inline style). -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9" exclude-result-prefixes="s">
  <xsl:output method="html" encoding="UTF-8" indent="yes" doctype-system="about:legacy-compat"/>

  <xsl:template name="date">
    <xsl:param name="value"/>
    <xsl:if test="$value">
      <xsl:value-of select="concat(substring($value, 9, 2), '/', substring($value, 6, 2), '/', substring($value, 1, 4))"/>
    </xsl:if>
  </xsl:template>

  <xsl:template match="/">
    <html lang="fr">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="robots" content="noindex"/>
        <title>Plan du site</title>
        <link rel="stylesheet" href="/assets/css/sitemap.css"/>
      </head>
      <body>
        <main>
          <h1>Plan du site</h1>
          <xsl:choose>
            <xsl:when test="s:sitemapindex">
              <xsl:variable name="files" select="count(s:sitemapindex/s:sitemap)"/>
              <p>Ce plan est réparti en <xsl:value-of select="$files"/> fichier<xsl:if test="$files &gt; 1">s</xsl:if>, lus par les moteurs de recherche.</p>
              <table>
                <thead><tr><th scope="col">Fichier</th><th scope="col">Dernière modification</th></tr></thead>
                <tbody>
                  <xsl:for-each select="s:sitemapindex/s:sitemap">
                    <tr>
                      <td><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
                      <td><xsl:call-template name="date"><xsl:with-param name="value" select="s:lastmod"/></xsl:call-template></td>
                    </tr>
                  </xsl:for-each>
                </tbody>
              </table>
            </xsl:when>
            <xsl:otherwise>
              <xsl:variable name="urls" select="count(s:urlset/s:url)"/>
              <p><xsl:value-of select="$urls"/> adresse<xsl:if test="$urls &gt; 1">s</xsl:if> dans ce fichier. <a href="/sitemap.xml">Tous les fichiers du plan</a></p>
              <table>
                <thead><tr><th scope="col">Adresse</th><th scope="col">Dernière modification</th></tr></thead>
                <tbody>
                  <xsl:for-each select="s:urlset/s:url">
                    <tr>
                      <td><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
                      <td><xsl:call-template name="date"><xsl:with-param name="value" select="s:lastmod"/></xsl:call-template></td>
                    </tr>
                  </xsl:for-each>
                </tbody>
              </table>
            </xsl:otherwise>
          </xsl:choose>
        </main>
      </body>
    </html>
  </xsl:template>
</xsl:stylesheet>
