import { DefaultNamingStrategy, type NamingStrategyInterface } from 'typeorm';

// `HTTPServer` -> `http_server`, `userID` -> `user_id`.
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z\d])/g, '$1_$2')
    .replace(/[\s.-]+/g, '_')
    .toLowerCase();
}

// snake_case, so hand-written SQL never needs quoted camelCase; explicit decorator names are kept.
// Constraint and index names keep TypeORM's hashed defaults: stable, and never colliding at Postgres'
// 63-character limit.
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override tableName(targetName: string, userSpecifiedName: string | undefined): string {
    return userSpecifiedName ?? snakeCase(targetName);
  }

  override columnName(propertyName: string, customName: string | undefined, embeddedPrefixes: string[]): string {
    const name = customName || snakeCase(propertyName);
    return embeddedPrefixes.length > 0 ? `${snakeCase(embeddedPrefixes.join('_'))}_${name}` : name;
  }

  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snakeCase(`${relationName}_${referencedColumnName}`);
  }

  override joinTableName(
    firstTableName: string,
    secondTableName: string,
    firstPropertyName: string,
    _secondPropertyName: string,
  ): string {
    return snakeCase(`${firstTableName}_${firstPropertyName.replaceAll('.', '_')}_${secondTableName}`);
  }

  override joinTableColumnName(tableName: string, propertyName: string, columnName?: string): string {
    return snakeCase(`${tableName}_${columnName ?? propertyName}`);
  }
}
